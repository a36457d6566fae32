#ifndef WEAVEDI_CK_SHIM_H
#define WEAVEDI_CK_SHIM_H
/* Only the pieces of Concurrency Kit the registry uses; Swift never calls them directly. */
#include <ck_epoch.h>
#include <ck_hs.h>
#endif
