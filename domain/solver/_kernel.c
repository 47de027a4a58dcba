/* The double-dummy search of domain/solver/search.py, compiled (docs/bots.md §4.10).
 *
 * A line-for-line port of the pure search: the same zero-window test at trick starts, the same
 * transposition table keyed by the relative hands (with the lead that last settled the node),
 * the same equivalent cards, move ordering, quick tricks and "safe for good" cut, and the same
 * node count. The pure module stays the reference: tests/property/test_solver_kernel.py holds
 * the two (and the brute force) to each other, node counts included, so a budget counted in
 * nodes means the same work in either.
 *
 * Cards are bits of a uint32 (card i = suit * 8 + rank, domain/solver/bits.py); the three active
 * seats are slots 0, 1, 2 in the order of play. Python sees one type, Kernel, whose `test` runs
 * the search from a trick start and whose `root` also plays out a trick on the table first
 * (domain/solver/solve.py's _Root). An aborted search (the node limit passed) returns None and
 * stores nothing after the limit was hit.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NO_LIMIT ((int64_t)1 << 62)
#define TT_LIMIT 1500000     /* entries kept before the table is cleared, as search.TT_LIMIT */
#define TT_MIN_BITS 12
#define TT_MAX_BITS 21       /* 2^21 slots of 24 bytes: 48 MB at most */

static uint8_t REPS[65536];
static uint8_t RELATIVE[65536];
static const uint32_t SM[4] = {0xFFu, 0xFFu << 8, 0xFFu << 16, 0xFFu << 24};
static const int NXT[3] = {1, 2, 0};

static void build_tables(void) {
    for (int present = 0; present < 256; present++) {
        for (int held = 0; held < 256; held++) {
            if (held & ~present) continue;
            int reps = 0, rel = 0, k = 0, prev = 0;
            for (int r = 0; r < 8; r++) {
                int bit = 1 << r;
                if (!(present & bit)) continue;
                if (held & bit) {
                    if (!prev) reps |= bit;
                    prev = 1;
                    rel |= 1 << k;
                } else {
                    prev = 0;
                }
                k++;
            }
            REPS[present << 8 | held] = (uint8_t)reps;
            RELATIVE[present << 8 | held] = (uint8_t)rel;
        }
    }
}

static inline int bit_length(uint32_t x) { return x ? 32 - __builtin_clz(x) : 0; }
static inline int popcount(uint32_t x) { return __builtin_popcount(x); }
static inline uint32_t top_bit(uint32_t x) { return (uint32_t)1 << (31 - __builtin_clz(x)); }
static inline int suit_of(uint32_t bit) { return (bit_length(bit) - 1) >> 3; }

typedef struct {
    uint64_t k0, k1; /* both 0: an empty slot (no position to store has every hand empty) */
    uint32_t best;   /* the lead that last settled the node, 0 if none */
    uint8_t bounds;  /* lower bound << 4 | upper bound, on the focus tricks still to come */
    uint8_t has_bounds;
} Entry;

typedef struct {
    PyObject_HEAD
    int trump;          /* -1: none */
    uint32_t tm;        /* the trump suit's mask, 0 without trumps */
    int trump_sh;
    int contract;
    int g;              /* the focus slot */
    int is_max[3];
    int talon[10];
    int n_talon;
    int forced;
    uint32_t h[3];
    int64_t counter;
    int64_t limit;
    int aborted;
    Entry *tt;
    uint64_t mask;      /* slots - 1 */
    int bits;
    int64_t count;
} Kernel;

/* ---- the transposition table ----------------------------------------------------------- */

static inline uint64_t hash_key(uint64_t k0, uint64_t k1) {
    uint64_t x = k0 * 0x9E3779B97F4A7C15ull ^ (k1 + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    return x ^ (x >> 32);
}

static Entry *tt_find(Kernel *s, uint64_t k0, uint64_t k1) {
    uint64_t i = hash_key(k0, k1) & s->mask;
    for (;;) {
        Entry *e = &s->tt[i];
        if (e->k0 == k0 && e->k1 == k1) return e;
        if (!e->k0 && !e->k1) return NULL;
        i = (i + 1) & s->mask;
    }
}

static int tt_alloc(Kernel *s, int bits) {
    Entry *t = (Entry *)calloc((size_t)1 << bits, sizeof(Entry));
    if (!t) return -1;
    s->tt = t;
    s->bits = bits;
    s->mask = ((uint64_t)1 << bits) - 1;
    s->count = 0;
    return 0;
}

static void tt_grow(Kernel *s) {
    Entry *old = s->tt;
    uint64_t n = s->mask + 1;
    if (tt_alloc(s, s->bits + 1) < 0) {
        s->tt = old; /* no memory: keep the table as it is */
        return;
    }
    for (uint64_t j = 0; j < n; j++) {
        Entry *e = &old[j];
        if (!e->k0 && !e->k1) continue;
        uint64_t i = hash_key(e->k0, e->k1) & s->mask;
        while (s->tt[i].k0 || s->tt[i].k1) i = (i + 1) & s->mask;
        s->tt[i] = *e;
        s->count++;
    }
    free(old);
}

/* The entry of a key, made if missing; NULL when the table is too full to take it (a result
 * not stored changes no value). */
static Entry *tt_slot(Kernel *s, uint64_t k0, uint64_t k1) {
    Entry *e = tt_find(s, k0, k1);
    if (e) return e;
    if ((uint64_t)(s->count + 1) * 2 > s->mask + 1) {
        if (s->bits < TT_MAX_BITS) tt_grow(s);
        else if ((uint64_t)(s->count + 1) * 10 > (s->mask + 1) * 9) return NULL;
    }
    uint64_t i = hash_key(k0, k1) & s->mask;
    while (s->tt[i].k0 || s->tt[i].k1) i = (i + 1) & s->mask;
    e = &s->tt[i];
    e->k0 = k0;
    e->k1 = k1;
    e->best = 0;
    e->bounds = 0;
    e->has_bounds = 0;
    s->count++;
    return e;
}

static void tt_store(Kernel *s, uint64_t k0, uint64_t k1, int bounds) {
    Entry *e = tt_slot(s, k0, k1);
    if (e) {
        e->bounds = (uint8_t)bounds;
        e->has_bounds = 1;
    }
}

static void tt_clear(Kernel *s) {
    free(s->tt);
    s->tt = NULL;
    if (tt_alloc(s, TT_MIN_BITS) < 0) s->tt = NULL;
}

/* ---- the search ------------------------------------------------------------------------ */

static inline uint32_t legal_reps(Kernel *s, uint32_t hand, int led, uint32_t present) {
    if (led >= 0) {
        uint32_t f = hand & SM[led];
        if (f) {
            int sh = led << 3;
            return (uint32_t)REPS[((present >> sh) & 255) << 8 | ((f >> sh) & 255)] << sh;
        }
        if (s->tm && (hand & s->tm)) {
            int sh = s->trump_sh;
            return (uint32_t)REPS[((present >> sh) & 255) << 8 | ((hand >> sh) & 255)] << sh;
        }
    }
    uint32_t out = 0;
    for (int sh = 0; sh < 32; sh += 8) {
        uint32_t hs = (hand >> sh) & 255;
        if (hs) out |= (uint32_t)REPS[((present >> sh) & 255) << 8 | hs] << sh;
    }
    return out;
}

static int quick_tricks(Kernel *s, int lead, uint32_t present) {
    const uint32_t *h = s->h;
    const uint32_t tm = s->tm;
    int side = s->is_max[lead];
    int p1 = NXT[lead], p2 = NXT[p1];
    int partner, opps[2], n_opps;
    if (s->is_max[p1] == side) {
        partner = p1; opps[0] = p2; n_opps = 1;
    } else if (s->is_max[p2] == side) {
        partner = p2; opps[0] = p1; n_opps = 1;
    } else {
        partner = -1; opps[0] = p1; opps[1] = p2; n_opps = 2;
    }
    uint32_t hl = h[lead];
    int total = 0;
    for (int si = 0; si < 4; si++) {
        uint32_t sm = SM[si];
        uint32_t mine = hl & sm;
        if (!mine) continue;
        uint32_t others = present & sm & ~hl;
        int top;
        if (others) {
            uint64_t below = ((uint64_t)1 << bit_length(others)) - 1;
            top = popcount(mine & ~(uint32_t)below);
            if (!top) continue;
        } else {
            top = popcount(mine);
        }
        int opp_len = 0;
        for (int j = 0; j < n_opps; j++) {
            int c = popcount(h[opps[j]] & sm);
            if (c > opp_len) opp_len = c;
        }
        int k_s;
        if (partner >= 0 && (h[partner] & sm)) k_s = top;
        else k_s = top >= opp_len ? popcount(mine) : top;
        if (tm && sm != tm) {
            for (int j = 0; j < n_opps; j++) {
                if (h[opps[j]] & tm) {
                    int c = popcount(h[opps[j]] & sm);
                    if (c < k_s) k_s = c;
                }
            }
            if (partner >= 0 && (h[partner] & tm)) {
                int c = popcount(h[partner] & sm);
                if (c < k_s) k_s = c;
            }
        }
        total += k_s;
    }
    return total;
}

/* Whether card c beats w, the winner so far (w nonzero): a higher trump, or a higher card of the
 * suit led while no trump is in. */
static inline int beats(uint32_t c, uint32_t w, uint32_t tm, uint32_t lm) {
    if (c & tm) return !(w & tm) || c > w;
    return !(w & tm) && (c & lm) && c > w;
}

static int search(Kernel *s, int lead, int need, int n, int k) {
    if (need <= 0) return 1;
    if (need > n) return 0;
    uint32_t *h = s->h;
    const uint32_t tm = s->tm;
    const int g = s->g;
    const int contract = s->contract;
    int p1 = NXT[lead], p2 = NXT[p1];
    if (n == 1) {
        uint32_t c0 = h[lead], c1 = h[p1], c2 = h[p2];
        int led = k < s->n_talon ? s->talon[k] : suit_of(c0);
        uint32_t played = c0 | c1 | c2;
        uint32_t top = played & tm;
        if (!top) top = played & SM[led];
        int w;
        if (!top) {
            w = lead;
        } else {
            uint32_t hb = top_bit(top);
            w = hb == c0 ? lead : (hb == c1 ? p1 : p2);
        }
        return w == g;
    }
    uint32_t h0 = h[0], h1 = h[1], h2 = h[2];
    uint32_t present = h0 | h1 | h2;
    uint64_t rel[4];
    for (int si = 0; si < 4; si++) {
        int sh = si << 3;
        uint32_t pr = ((present >> sh) & 255) << 8;
        rel[si] = (uint64_t)RELATIVE[pr | ((h0 >> sh) & 255)] << 16
                | (uint64_t)RELATIVE[pr | ((h1 >> sh) & 255)] << 8
                | (uint64_t)RELATIVE[pr | ((h2 >> sh) & 255)];
    }
    uint64_t kk = (k < s->forced || k < s->n_talon) ? (uint64_t)(k + 1) : 0;
    uint64_t key0 = rel[0] | rel[1] << 24 | (uint64_t)lead << 48 | kk << 50;
    uint64_t key1 = rel[2] | rel[3] << 24;
    Entry *entry = tt_find(s, key0, key1);
    int lo = 0, hi = n;
    if (entry && entry->has_bounds) {
        lo = entry->bounds >> 4;
        if (lo >= need) return 1;
        hi = entry->bounds & 15;
        if (hi < need) return 0;
    }
    if (contract) {
        int qt = quick_tricks(s, lead, present);
        if (qt) {
            if (s->is_max[lead]) {
                if (qt >= need) {
                    tt_store(s, key0, key1, qt << 4 | hi);
                    return 1;
                }
                if (qt > lo) lo = qt;
            } else {
                if (n - qt < need) {
                    tt_store(s, key0, key1, lo << 4 | (n - qt));
                    return 0;
                }
                if (n - qt < hi) hi = n - qt;
            }
        }
    } else if (lead != g && k >= s->n_talon && !(g == 0 && k + 1 < s->forced)) {
        uint32_t hg = h[g];
        uint32_t others = present & ~hg;
        int safe = 1;
        for (int si = 0; si < 4; si++) {
            uint32_t d = hg & SM[si];
            if (d) {
                uint32_t o = others & SM[si];
                if (o && (o & (0u - o)) < d) {
                    safe = 0;
                    break;
                }
            }
        }
        if (safe) {
            tt_store(s, key0, key1, lo << 4);
            return 0;
        }
    }
    s->counter++;
    if (s->counter > s->limit) {
        s->aborted = 1;
        return 0;
    }
    const int max0 = s->is_max[lead], max1 = s->is_max[p1], max2 = s->is_max[p2];
    const int next_forced = k + 1 < s->forced;
    const int talon_led = k < s->n_talon ? s->talon[k] : -1;
    const int k1 = k + 1, n1 = n - 1;

    /* ---- the lead ---- */
    uint32_t hl = h[lead];
    uint32_t reps0 = legal_reps(s, hl, talon_led, present);
    uint32_t moves0[10];
    int nm0 = 0;
    uint32_t first = entry ? entry->best : 0; /* nothing was stored since the look-up */
    if (first && (reps0 & first)) {
        moves0[nm0++] = first;
        reps0 ^= first;
    }
    uint32_t x = reps0;
    if (contract) {
        uint32_t later[10];
        int nl = 0;
        while (x) {
            uint32_t c = x & (0u - x);
            x ^= c;
            uint32_t above = ~(uint32_t)(((uint64_t)c << 1) - 1);
            if (present & ~hl & above & SM[suit_of(c)]) moves0[nm0++] = c;
            else later[nl++] = c;
        }
        for (int i = 0; i < nl; i++) moves0[nm0++] = later[i];
    } else {
        while (x) {
            uint32_t c = x & (0u - x);
            x ^= c;
            moves0[nm0++] = c;
        }
    }

    int result = !max0;
    for (int i0 = 0; i0 < nm0; i0++) {
        uint32_t c0 = moves0[i0];
        h[lead] = hl ^ c0;
        int led = talon_led >= 0 ? talon_led : suit_of(c0);
        uint32_t lm = SM[led];
        int lsh = led << 3;
        uint32_t lpr = ((present >> lsh) & 255) << 8;
        uint32_t win0 = (c0 & lm) ? c0 : 0;
        /* ---- the second hand ---- */
        uint32_t hs1 = h[p1];
        uint32_t f = hs1 & lm;
        uint32_t reps1 = f ? (uint32_t)REPS[lpr | f >> lsh] << lsh : legal_reps(s, hs1, led, present);
        uint32_t moves1[10];
        int nm1 = 0;
        uint32_t y = reps1;
        if (contract) {
            uint32_t cheapest = 0;
            uint32_t rest[10];
            int nr = 0;
            while (y) {
                uint32_t c = y & (0u - y);
                y ^= c;
                if (!cheapest && max1 != max0 && beats(c, win0, tm, lm)) cheapest = c;
                else rest[nr++] = c;
            }
            if (cheapest) moves1[nm1++] = cheapest;
            for (int i = 0; i < nr; i++) moves1[nm1++] = rest[i];
        } else {
            uint32_t ducks[10], overs[10];
            int nd_ = 0, no = 0;
            while (y) {
                uint32_t c = y & (0u - y);
                y ^= c;
                if (win0 && (c & lm) && c > win0) overs[no++] = c;
                else ducks[nd_++] = c;
            }
            if (lead == g || p1 == g) {
                for (int i = nd_ - 1; i >= 0; i--) moves1[nm1++] = ducks[i];
                for (int i = 0; i < no; i++) moves1[nm1++] = overs[i];
            } else {
                for (int i = 0; i < no; i++) moves1[nm1++] = overs[i];
                for (int i = nd_ - 1; i >= 0; i--) moves1[nm1++] = ducks[i];
            }
        }
        int r1 = !max1;
        for (int i1 = 0; i1 < nm1; i1++) {
            uint32_t c1 = moves1[i1];
            h[p1] = hs1 ^ c1;
            uint32_t w01;
            int wslot;
            if (!win0) {
                w01 = ((c1 & lm) || (c1 & tm)) ? c1 : 0;
                wslot = w01 ? p1 : lead;
            } else if (beats(c1, win0, tm, lm)) {
                w01 = c1;
                wslot = p1;
            } else {
                w01 = win0;
                wslot = lead;
            }
            /* ---- the last hand: each card settles the trick ---- */
            uint32_t hs2 = h[p2];
            f = hs2 & lm;
            y = f ? (uint32_t)REPS[lpr | f >> lsh] << lsh : legal_reps(s, hs2, led, present);
            uint64_t order[20]; /* card << 2 | the slot it makes win (a card is up to bit 31) */
            uint64_t good[10], bad[10];
            int ng = 0, nb = 0;
            while (y) {
                uint32_t c2 = y & (0u - y);
                y ^= c2;
                int w;
                if (!w01) w = ((c2 & lm) || (c2 & tm)) ? p2 : lead;
                else if (beats(c2, w01, tm, lm)) w = p2;
                else w = wslot;
                if ((w == g) == max2) good[ng++] = (uint64_t)c2 << 2 | (uint64_t)w;
                else bad[nb++] = (uint64_t)c2 << 2 | (uint64_t)w;
            }
            int no2 = 0;
            if (contract) {
                for (int i = 0; i < ng; i++) order[no2++] = good[i];
                for (int i = 0; i < nb; i++) order[no2++] = bad[i];
            } else {
                for (int i = ng - 1; i >= 0; i--) order[no2++] = good[i];
                for (int i = nb - 1; i >= 0; i--) order[no2++] = bad[i];
            }
            int r2 = !max2;
            for (int i2 = 0; i2 < no2; i2++) {
                uint64_t cw = order[i2];
                int w = (int)(cw & 3);
                uint32_t c2 = (uint32_t)(cw >> 2);
                int nd = w == g ? need - 1 : need;
                int r;
                if (nd <= 0) {
                    r = 1;
                } else if (nd > n1) {
                    r = 0;
                } else if (n1 == 1) {
                    int nl = next_forced ? 0 : w;
                    int q1 = NXT[nl], q2 = NXT[q1];
                    uint32_t d0 = nl != p2 ? h[nl] : hs2 ^ c2;
                    uint32_t d1 = q1 != p2 ? h[q1] : hs2 ^ c2;
                    uint32_t d2 = q2 != p2 ? h[q2] : hs2 ^ c2;
                    int led2 = k1 < s->n_talon ? s->talon[k1] : suit_of(d0);
                    uint32_t played = d0 | d1 | d2;
                    uint32_t top = played & tm;
                    if (!top) top = played & SM[led2];
                    if (!top) {
                        r = nl == g;
                    } else {
                        uint32_t hb = top_bit(top);
                        r = (hb == d0 ? nl : (hb == d1 ? q1 : q2)) == g;
                    }
                } else {
                    h[p2] = hs2 ^ c2;
                    r = search(s, next_forced ? 0 : w, nd, n1, k1);
                    if (s->aborted) {
                        h[p2] = hs2;
                        h[p1] = hs1;
                        h[lead] = hl;
                        return 0;
                    }
                }
                if (r == max2) {
                    r2 = r;
                    break;
                }
            }
            h[p2] = hs2;
            if (r2 == max1) {
                r1 = r2;
                break;
            }
        }
        h[p1] = hs1;
        if (r1 == max0) {
            result = r1;
            Entry *e = tt_slot(s, key0, key1);
            if (e) e->best = c0;
            break;
        }
    }
    h[lead] = hl;
    if (result) {
        if (need > lo) lo = need;
    } else if (need - 1 < hi) {
        hi = need - 1;
    }
    tt_store(s, key0, key1, lo << 4 | hi);
    return result;
}

/* A test from a trick start, as Solver.test: the table is cleared first when it is too big. */
static int test_from(Kernel *s, int leader, int need, int n, int k) {
    if (s->count > TT_LIMIT) tt_clear(s);
    if (!s->tt) return -2;
    s->aborted = 0;
    int r = search(s, leader, need, n, k);
    return s->aborted ? -1 : r;
}

/* ---- the root: a trick on the table, played out card by card (solve._Root._node) ---- */

typedef struct {
    uint32_t hands[3];
    int slots[3];
    uint32_t cards[3];
    int len;
    int turn_slot;
    int n, k, led; /* led: the talon's suit or the first card's, -1 before a lead */
} Root;

static inline uint32_t legal_mask(uint32_t hand, int led, int trump) {
    if (led < 0) return hand;
    uint32_t follow = hand & SM[led];
    if (follow) return follow;
    if (trump >= 0) {
        uint32_t t = hand & SM[trump];
        if (t) return t;
    }
    return hand;
}

static int root_node(Kernel *s, Root *r, int need) {
    if (r->len == 3) {
        int led = r->led >= 0 ? r->led : suit_of(r->cards[0]);
        uint32_t played = r->cards[0] | r->cards[1] | r->cards[2];
        uint32_t top = s->trump >= 0 ? played & SM[s->trump] : 0;
        if (!top) top = played & SM[led];
        int w;
        if (!top) {
            w = r->slots[0];
        } else {
            uint32_t hb = top_bit(top);
            w = hb == r->cards[0] ? r->slots[0] : (hb == r->cards[1] ? r->slots[1] : r->slots[2]);
        }
        int won = w == s->g;
        if (r->n == 1) return won >= need;
        int nxt = r->k + 1 < s->forced ? 0 : w;
        memcpy(s->h, r->hands, sizeof r->hands);
        return test_from(s, nxt, need - won, r->n - 1, r->k + 1);
    }
    if (r->len == 0) {
        memcpy(s->h, r->hands, sizeof r->hands);
        return test_from(s, r->turn_slot, need, r->n, r->k);
    }
    int slot = (r->slots[r->len - 1] + 1) % 3;
    uint32_t hand = r->hands[slot];
    int led = r->led >= 0 ? r->led : suit_of(r->cards[0]);
    uint32_t legal = legal_mask(hand, led, s->trump);
    uint32_t present = r->hands[0] | r->hands[1] | r->hands[2];
    for (int i = 0; i < r->len; i++) present |= r->cards[i];
    uint32_t reps = 0;
    for (int sh = 0; sh < 32; sh += 8) {
        uint32_t held = (legal >> sh) & 255;
        if (held) reps |= (uint32_t)REPS[((present >> sh) & 255) << 8 | held] << sh;
    }
    int maximising = s->is_max[slot];
    int result = !maximising;
    while (reps) {
        uint32_t c = reps & (0u - reps);
        reps ^= c;
        r->hands[slot] = hand ^ c;
        r->slots[r->len] = slot;
        r->cards[r->len] = c;
        r->len++;
        int v = root_node(s, r, need);
        r->len--;
        if (v < 0) {
            r->hands[slot] = hand;
            return v;
        }
        if (v == maximising) {
            result = v;
            break;
        }
    }
    r->hands[slot] = hand;
    return result;
}

/* ---- the Python type ------------------------------------------------------------------- */

static PyObject *answer(int r) {
    if (r == -2) return PyErr_NoMemory();
    if (r < 0) Py_RETURN_NONE;
    return PyBool_FromLong(r);
}

static int Kernel_init(Kernel *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"trump", "contract", "focus_slot", "talon_leads", "forehand_leads_until", NULL};
    PyObject *trump_o, *talon_o;
    int contract, g, forced;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OpiOi", kwlist, &trump_o, &contract, &g, &talon_o, &forced))
        return -1;
    if (g < 0 || g > 2) {
        PyErr_SetString(PyExc_ValueError, "the focus slot is 0, 1 or 2");
        return -1;
    }
    if (trump_o == Py_None) {
        self->trump = -1;
    } else {
        long t = PyLong_AsLong(trump_o);
        if (t == -1 && PyErr_Occurred()) return -1;
        if (t < 0 || t > 3) {
            PyErr_SetString(PyExc_ValueError, "a trump is a suit index, 0 to 3");
            return -1;
        }
        self->trump = (int)t;
    }
    self->tm = self->trump >= 0 ? SM[self->trump] : 0;
    self->trump_sh = self->trump >= 0 ? self->trump << 3 : 0;
    self->contract = contract;
    self->g = g;
    for (int i = 0; i < 3; i++) self->is_max[i] = (g == i) == (contract != 0);
    PyObject *seq = PySequence_Fast(talon_o, "talon_leads is a sequence of suit indexes");
    if (!seq) return -1;
    Py_ssize_t nt = PySequence_Fast_GET_SIZE(seq);
    if (nt > 10) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "at most ten talon leads");
        return -1;
    }
    for (Py_ssize_t i = 0; i < nt; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((v == -1 && PyErr_Occurred()) || v < 0 || v > 3) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a talon lead is a suit index");
            return -1;
        }
        self->talon[i] = (int)v;
    }
    Py_DECREF(seq);
    self->n_talon = (int)nt;
    self->forced = forced;
    self->counter = 0;
    self->limit = NO_LIMIT;
    free(self->tt);
    self->tt = NULL;
    if (tt_alloc(self, TT_MIN_BITS) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void Kernel_dealloc(Kernel *self) {
    free(self->tt);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int read_u32(PyObject *o, uint32_t *out) {
    unsigned long v = PyLong_AsUnsignedLong(o);
    if (v == (unsigned long)-1 && PyErr_Occurred()) return -1;
    if (v > 0xFFFFFFFFul) {
        PyErr_SetString(PyExc_ValueError, "a hand is a 32-bit mask");
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static int read_int(PyObject *o, int lo, int hi, int *out) {
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < lo || v > hi) {
        PyErr_SetString(PyExc_ValueError, "an argument is out of range");
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int valid_hands(const uint32_t *h) {
    if ((h[0] & h[1]) || (h[0] & h[2]) || (h[1] & h[2])) {
        PyErr_SetString(PyExc_ValueError, "a card is in two hands");
        return 0;
    }
    return 1;
}

/* test(h0, h1, h2, leader, need, n, k) -> bool, or None when the node limit ended it */
static PyObject *Kernel_test(Kernel *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "test(h0, h1, h2, leader, need, n, k)");
        return NULL;
    }
    uint32_t h[3];
    int leader, need, n, k;
    for (int i = 0; i < 3; i++)
        if (read_u32(args[i], &h[i]) < 0) return NULL;
    if (read_int(args[3], 0, 2, &leader) < 0 || read_int(args[4], -100, 100, &need) < 0 ||
        read_int(args[5], 1, 10, &n) < 0 || read_int(args[6], 0, 9, &k) < 0)
        return NULL;
    if (!valid_hands(h)) return NULL;
    for (int i = 0; i < 3; i++) {
        if (popcount(h[i]) != n) {
            PyErr_SetString(PyExc_ValueError, "every hand holds the tricks left");
            return NULL;
        }
    }
    memcpy(self->h, h, sizeof h);
    return answer(test_from(self, leader, need, n, k));
}

/* root(h0, h1, h2, trick, turn_slot, need, n, k, led) -> bool or None: trick is a tuple of
 * (slot, one-bit card) on the table, led the suit to follow (-1 before a lead) */
static PyObject *Kernel_root(Kernel *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "root(h0, h1, h2, trick, turn_slot, need, n, k, led)");
        return NULL;
    }
    Root r;
    for (int i = 0; i < 3; i++)
        if (read_u32(args[i], &r.hands[i]) < 0) return NULL;
    int need;
    if (read_int(args[4], 0, 2, &r.turn_slot) < 0 || read_int(args[5], -100, 100, &need) < 0 ||
        read_int(args[6], 1, 10, &r.n) < 0 || read_int(args[7], 0, 9, &r.k) < 0 ||
        read_int(args[8], -1, 3, &r.led) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(args[3], "the trick is a sequence of (slot, card)");
    if (!seq) return NULL;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    if (len > 3) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "at most three cards on the table");
        return NULL;
    }
    uint32_t seen = r.hands[0] | r.hands[1] | r.hands[2];
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2 ||
            read_int(PyTuple_GET_ITEM(item, 0), 0, 2, &r.slots[i]) < 0 ||
            read_u32(PyTuple_GET_ITEM(item, 1), &r.cards[i]) < 0 || popcount(r.cards[i]) != 1 ||
            (seen & r.cards[i])) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a card on the table is (slot, one new bit)");
            return NULL;
        }
        seen |= r.cards[i];
    }
    Py_DECREF(seq);
    r.len = (int)len;
    if (!valid_hands(r.hands)) return NULL;
    for (int i = 0; i < 3; i++) {
        int played = 0;
        for (int j = 0; j < r.len; j++) played += r.slots[j] == i;
        if (popcount(r.hands[i]) + played != r.n) {
            PyErr_SetString(PyExc_ValueError, "every hand holds the tricks left");
            return NULL;
        }
    }
    return answer(root_node(self, &r, need));
}

static PyObject *Kernel_set_limit(Kernel *self, PyObject *arg) {
    long long v = PyLong_AsLongLong(arg);
    if (v == -1 && PyErr_Occurred()) return NULL;
    self->limit = v < 0 ? NO_LIMIT : (int64_t)v;
    Py_RETURN_NONE;
}

static PyObject *Kernel_clear(Kernel *self, PyObject *Py_UNUSED(ignored)) {
    tt_clear(self);
    if (!self->tt) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Kernel_get_nodes(Kernel *self, void *closure) {
    return PyLong_FromLongLong(self->counter);
}

static PyObject *Kernel_get_entries(Kernel *self, void *closure) {
    return PyLong_FromLongLong(self->count);
}

static PyMethodDef Kernel_methods[] = {
    {"test", (PyCFunction)(void (*)(void))Kernel_test, METH_FASTCALL,
     "test(h0, h1, h2, leader, need, n, k): whether the maximising side makes the focus take "
     "at least need of the n tricks left from a trick start (None: the node limit ended it)"},
    {"root", (PyCFunction)(void (*)(void))Kernel_root, METH_FASTCALL,
     "root(h0, h1, h2, trick, turn_slot, need, n, k, led): the same test with cards on the table"},
    {"set_limit", (PyCFunction)Kernel_set_limit, METH_O,
     "set_limit(nodes): abort once the node count passes nodes (negative: no limit)"},
    {"clear", (PyCFunction)Kernel_clear, METH_NOARGS, "empty the transposition table"},
    {NULL}
};

static PyGetSetDef Kernel_getset[] = {
    {"nodes", (getter)Kernel_get_nodes, NULL, "trick starts expanded so far", NULL},
    {"entries", (getter)Kernel_get_entries, NULL, "positions in the transposition table", NULL},
    {NULL}
};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "domain.solver._kernel.Kernel",
    .tp_doc = "Kernel(trump, contract, focus_slot, talon_leads, forehand_leads_until): one "
              "search context with its transposition table (domain.solver.search.Solver)",
    .tp_basicsize = sizeof(Kernel),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Kernel_init,
    .tp_dealloc = (destructor)Kernel_dealloc,
    .tp_methods = Kernel_methods,
    .tp_getset = Kernel_getset,
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "_kernel",
    "The compiled double-dummy search (domain/solver/_kernel.c).", -1, NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernel(void) {
    build_tables();
    if (PyType_Ready(&KernelType) < 0) return NULL;
    PyObject *m = PyModule_Create(&kernel_module);
    if (!m) return NULL;
    Py_INCREF(&KernelType);
    if (PyModule_AddObject(m, "Kernel", (PyObject *)&KernelType) < 0) {
        Py_DECREF(&KernelType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
