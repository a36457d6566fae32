#ifndef WEAVEDI_CK_SHIM_MACOS_H
#define WEAVEDI_CK_SHIM_MACOS_H
/* CConcurrencyKit's shim under a second module: SwiftPM rejects two
   conditional dependencies on one target, so macOS's opt-in has its own. */
#include <ck_epoch.h>
#include <ck_hs.h>
#endif
