/* graph_scope.pml: the graph scope's boundary, one instance per outermost
 * resolve.
 *
 * Two threads each make two outermost resolves of a screen whose factory
 * resolves a .graph logger twice (directly, and through a repository). A
 * resolve of the logger looks in the graph store, else builds one and keeps
 * it while an outer factory is running; the outermost factory's return
 * (the pop that empties the chain) ends the graph. Source:
 * Resolver.buildInGraph (Sources/WeaveDICore/Resolution/Resolver.swift),
 * BuildChain.graphInstance / keepGraphInstance / pop / endGraph
 * (Sources/WeaveDICore/Registry/BuildChain.swift). The store is a field of
 * the thread's BuildChain, so each thread has its own.
 *
 * Properties: the two resolves inside one outermost resolve answer one
 * instance; that instance was built by that thread in that outermost
 * resolve (never another thread's, never an earlier resolve's).
 */

#define THREADS 2
#define ROUNDS 2
#define INSTANCES 9

#ifdef MUTANT_SHARED
#define STORE(t) store[0]           /* one store for every thread (Swinject #135) */
#else
#define STORE(t) store[t]
#endif

byte store[THREADS];                /* the graph's logger, 0: none */
byte depth[THREADS];                /* frames on the thread's chain */
byte next_instance = 1;
byte built_by[INSTANCES];           /* thread + 1 */
byte built_in[INSTANCES];           /* the outermost resolve (round) */

inline resolve_logger(t, round, got) {
    got = STORE(t);
    if
    :: got == 0 ->
        atomic {
            got = next_instance;
            next_instance++;
            built_by[got] = t + 1;
            built_in[got] = round
        };
        if
        :: depth[t] > 0 -> STORE(t) = got   /* keepGraphInstance: inside a build */
        :: else -> skip
        fi
    :: else -> skip
    fi
}

proctype resolver(byte t) {
    byte round = 0;
    byte direct, through;
    do
    :: round < ROUNDS ->
        depth[t]++;                         /* the screen's factory starts (push) */
        resolve_logger(t, round, direct);
        depth[t]++;                         /* the repository's factory */
        resolve_logger(t, round, through);
        depth[t]--;
        assert(direct == through);
        assert(built_by[direct] == t + 1 && built_in[direct] == round);
        depth[t]--;                         /* the screen's factory returns (pop) */
#ifndef MUTANT_NO_END
        if
        :: depth[t] == 0 -> STORE(t) = 0    /* endGraph */
        :: else -> skip
        fi;
#endif
        round++
    :: else -> break
    od
}

init {
    atomic {
        run resolver(0);
        run resolver(1)
    }
}
