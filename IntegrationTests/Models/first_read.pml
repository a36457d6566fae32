/* first_read.pml: a lazily injected property's first read, published once.
 *
 * Three threads read one @LazyInjected / @WeakLazyInjected property for the
 * first time at once. Each one that finds the cell empty reads its own
 * value (a transient registration builds a new one per read), boxes it and
 * offers the box with one compare-and-exchange; the loser releases its box
 * and answers the winner's. Source: FirstReadCell.current / publish
 * (Sources/WeaveDICore/Resolution/FirstReadCell.swift) and
 * LazyInjected.wrappedValue / readFirst.
 *
 * Properties: every read answers the published box's value (one value per
 * property); no read touches a released box; the published box is never
 * released while the cell lives.
 */

#define N 3

byte cell = 0;              /* 0: empty; else the published box (1..N) */
bool alive[N + 1];          /* box b allocated and not released */
byte answer[N];             /* the box each read answered */
byte finished = 0;

proctype reader(byte me) {
    byte seen;
    byte mine = me + 1;
    bool won;
    seen = cell;                            /* current(): acquiring load */
    if
    :: seen != 0 ->
        assert(alive[seen]);
        answer[me] = seen
    :: else ->
        alive[mine] = true;                 /* readFirst: a box of its own read */
        atomic {                            /* publish: compare-and-exchange nil -> mine */
            if
            :: cell == 0 -> cell = mine; won = true
            :: else -> won = false; seen = cell
            fi
        }
#ifdef MUTANT_LOSER_KEEPS_OWN
        won = true;                         /* `if exchanged || true`: the loser answers its own box */
#endif
        if
        :: won -> answer[me] = mine
        :: else ->
#ifdef MUTANT_RELEASE_WINNER
            alive[seen] = false;            /* releases the winner's box instead of its own */
#else
            alive[mine] = false;            /* releases its own, unpublished box */
#endif
            assert(alive[seen]);
            answer[me] = seen
        fi
    fi;
    assert(alive[answer[me]]);              /* the box read is not released */
    finished++
}

init {
    byte i;
    atomic {
        i = 0;
        do
        :: i < N -> run reader(i); i++
        :: else -> break
        od
    }
    (finished == N);
    i = 0;
    do
    :: i < N ->
        assert(answer[i] == cell);          /* one value per property */
        i++
    :: else -> break
    od;
    assert(alive[cell])                     /* the published box lives as long as the cell */
}
