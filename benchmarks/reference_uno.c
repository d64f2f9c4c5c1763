/* A tight C random player of the native engine's two benchmark games: the practical limit
 * that benchmarks/native.py measures the native engine against (the ratio native / C).
 *
 *     cc -O3 -o reference_uno benchmarks/reference_uno.c
 *     ./reference_uno rlcard 2 DECISIONS [SEED]     # prints: games decisions cpu_seconds
 *     ./reference_uno no_mercy 4 DECISIONS [SEED]
 *
 * The same decks and the same rules as the presets `rlcard` (108 cards: draw one, a
 * playable drawn card played at once, a Wild Draw 4 only without another playable card,
 * no stacking) and `no_mercy` (168 cards: draw until playable, stacking of Draw cards of
 * the last value or more, 7-0, Discard All, Skip Everyone, Wild Color Roulette, Uno calls
 * and catches, knock-out at 25 cards), and the same decisions: each one a uniform choice
 * among the deciding seat's legal actions, counted as the native engine counts them (one
 * action per distinct card kind and variant: a wild's four colours, a Seven's targets, the
 * Uno call variant; then draw, take, pass, colours, and the Uno calls and catches open).
 *
 * What it leaves out, as a program written for speed alone would: the Python engine's
 * exact shuffles (CPython's MT19937 seeded per shuffle; here one xorshift64* stream for
 * the shuffles and the choices), any conversion, checking or API. Hands are counts per
 * card kind, so a play is one decrement and the legal plays one pass over the kinds.
 * Scores are counted at the end of a round so that the work of the round is complete. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAXK = 72, MAXP = 6, MAXDECK = 168, NONE = -1 };
enum { F_SKIP = 10, F_REV, F_D2, F_D4, F_DA, F_SE, F_W, F_WD4, F_WRD4, F_WD6, F_WD10, F_WCR };
enum { D_PLAY, D_DRAWN, D_STACK, D_COLOR, D_ROULETTE };
enum { A_PLAY, A_DRAW, A_PASS, A_TAKE, A_COLOR, A_UNO, A_CATCH };

typedef struct { int color, face, draw, points, wild, number; } Kind;
typedef struct {
    int nomercy; /* the no_mercy preset's rules, else rlcard's */
    int nk;
    Kind k[MAXK];
    int deck[MAXDECK], ndeck;
    /* sets of card kinds, two 64-bit words: by face, by colour (+1; 0: none), wilds, Wild
     * Draw 4s, the Draw cards of value v or more */
    uint64_t face[F_WCR + 1][2], color[5][2], wild[2], wd4[2], draw_ge[11][2];
} Game;

typedef struct {
    uint8_t cnt[MAXP][MAXK];
    uint64_t set[MAXP][2]; /* the kinds in each hand, kept up to date */
    int hlen[MAXP], active[MAXP], nactive, players;
    int pile[MAXDECK], npile, disc[MAXDECK], ndisc, aside[MAXDECK], naside;
    int cur, dealer, dir, color, decision, pending, last, drawn, roulette_by, over;
    int uo[MAXP], nuo;
} Table;

static uint64_t rng_state = 88172645463325252ull;
static inline uint64_t rnd(void) {
    uint64_t x = rng_state;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    rng_state = x;
    return (x * 2685821657736338717ull) >> 32;
}
static inline int below(int n) { return (int)((rnd() * (uint64_t)n) >> 32); }

static void add_kind(Game *g, int color, int face, int copies) {
    Kind *k = &g->k[g->nk];
    k->color = color; k->face = face; k->wild = face >= F_W; k->number = face < 10;
    k->draw = face == F_D2 ? 2 : face == F_D4 || face == F_WD4 || face == F_WRD4 ? 4
            : face == F_WD6 ? 6 : face == F_WD10 ? 10 : 0;
    k->points = face < 10 ? face : k->wild ? 50 : 20;
    for (int i = 0; i < copies; i++) g->deck[g->ndeck++] = g->nk;
    int w = g->nk >> 6;
    uint64_t bit = 1ull << (g->nk & 63);
    g->face[face][w] |= bit;
    g->color[color + 1][w] |= bit;
    if (k->wild) g->wild[w] |= bit;
    if (face == F_WD4) g->wd4[w] |= bit;
    for (int v = 0; v <= 10; v++) if (k->draw && k->draw >= v) g->draw_ge[v][w] |= bit;
    g->nk++;
}

static void make_game(Game *g, int nomercy) {
    memset(g, 0, sizeof *g);
    g->nomercy = nomercy;
    for (int c = 0; c < 4; c++) {
        for (int f = 0; f < 10; f++) add_kind(g, c, f, nomercy ? 2 : (f == 0 ? 1 : 2));
        add_kind(g, c, F_SKIP, nomercy ? 3 : 2);
        add_kind(g, c, F_REV, nomercy ? 3 : 2);
        add_kind(g, c, F_D2, nomercy ? 3 : 2);
        if (nomercy) { add_kind(g, c, F_D4, 2); add_kind(g, c, F_DA, 3); add_kind(g, c, F_SE, 2); }
    }
    if (nomercy) {
        add_kind(g, NONE, F_WRD4, 8); add_kind(g, NONE, F_WD6, 4);
        add_kind(g, NONE, F_WD10, 4); add_kind(g, NONE, F_WCR, 8);
    } else {
        add_kind(g, NONE, F_W, 4); add_kind(g, NONE, F_WD4, 4);
    }
}

static void shuffle(int *a, int n) {
    for (int i = n - 1; i > 0; i--) { int j = below(i + 1), t = a[i]; a[i] = a[j]; a[j] = t; }
}

static inline int next_seat(const Table *t, int seat) {
    int n = t->players;
    do { seat += t->dir; seat = seat < 0 ? seat + n : seat >= n ? seat - n : seat; } while (!t->active[seat]);
    return seat;
}
static inline int prev_seat(Table *t, int seat) { t->dir = -t->dir; seat = next_seat(t, seat); t->dir = -t->dir; return seat; }
static inline int top(const Table *t) { return t->disc[t->ndisc - 1]; }
static inline void gain(Table *t, int seat, int k) { t->cnt[seat][k]++; t->hlen[seat]++; t->set[seat][k >> 6] |= 1ull << (k & 63); }
static inline void lose(Table *t, int seat, int k) {
    t->hlen[seat]--;
    if (--t->cnt[seat][k] == 0) t->set[seat][k >> 6] &= ~(1ull << (k & 63));
}
static inline void move_hand(Table *t, int to, const uint8_t *cnt, const uint64_t *set, int len) {
    memcpy(t->cnt[to], cnt, MAXK); t->set[to][0] = set[0]; t->set[to][1] = set[1]; t->hlen[to] = len;
}

static int reshuffle(Table *t) {
    if (t->ndisc <= 1 && t->naside == 0) return 0;
    for (int i = 0; i < t->ndisc - 1; i++) t->pile[t->npile++] = t->disc[i];
    for (int i = 0; i < t->naside; i++) t->pile[t->npile++] = t->aside[i];
    t->disc[0] = top(t); t->ndisc = 1; t->naside = 0;
    shuffle(t->pile, t->npile);
    return 1;
}

static void remove_uo(Table *t, int seat) {
    int k = 0;
    for (int i = 0; i < t->nuo; i++) if (t->uo[i] != seat) t->uo[k++] = t->uo[i];
    t->nuo = k;
}

static void finish(const Game *g, Table *t, int winner) {
    int won = 0;
    for (int s = 0; s < t->players; s++)
        if (s != winner && t->active[s])
            for (int k = 0; k < g->nk; k++) won += t->cnt[s][k] * g->k[k].points;
    t->over = 1 + (won & 0); /* the points are the round's last work */
    t->cur = NONE;
}

static void knock_out(const Game *g, Table *t, int seat) {
    for (int k = 0; k < g->nk; k++)
        for (int c = t->cnt[seat][k]; c > 0; c--) t->aside[t->naside++] = k;
    memset(t->cnt[seat], 0, sizeof t->cnt[seat]);
    t->set[seat][0] = t->set[seat][1] = 0;
    t->hlen[seat] = 0; t->active[seat] = 0; t->nactive--;
    remove_uo(t, seat);
    if (t->nactive == 1) { int w = 0; while (!t->active[w]) w++; finish(g, t, w); }
}

static inline int matches(const Game *g, const Table *t, int k) {
    return g->k[k].wild || g->k[k].color == t->color || g->k[k].face == g->k[top(t)].face;
}
/* The set of the kinds that may be played on the top card, word w. */
static inline uint64_t match_set(const Game *g, const Table *t, int w) {
    return g->face[g->k[top(t)].face][w] | g->color[t->color + 1][w] | g->wild[w];
}

/* May seat play kind k on the top card (a Wild Draw 4 only without another card that may). */
static int playable(const Game *g, const Table *t, int seat, int k) {
    if (g->k[k].face != F_WD4) return matches(g, t, k);
    for (int w = 0; w < 2; w++) if (t->set[seat][w] & match_set(g, t, w) & ~g->wd4[w]) return 0;
    return 1;
}

enum { UNTIL_COUNT, UNTIL_PLAYABLE, UNTIL_COLOR };
/* Draw `count` cards (-1: no limit) or until a playable card or one of `color`: returns the
 * card the search stopped at or NONE; sets *knocked at the mercy limit. */
static int draw_cards(const Game *g, Table *t, int seat, int count, int until, int color, int *knocked) {
    if (t->nuo) remove_uo(t, seat);
    *knocked = 0;
    while (count != 0) {
        if (t->npile == 0 && !reshuffle(t)) break;
        int k = t->pile[--t->npile];
        gain(t, seat, k); count--;
        if (g->nomercy && t->hlen[seat] >= 25) { *knocked = 1; return NONE; }
        if (until == UNTIL_PLAYABLE && playable(g, t, seat, k)) return k;
        if (until == UNTIL_COLOR && g->k[k].color == color) return k;
    }
    return NONE;
}

static void give(const Game *g, Table *t, int seat, int count) {
    int knocked;
    draw_cards(g, t, seat, count, UNTIL_COUNT, NONE, &knocked);
    if (knocked) knock_out(g, t, seat);
}

static inline void advance(Table *t, int seat) { t->cur = seat; t->decision = D_PLAY; }

static void effect(const Game *g, Table *t, int seat, int k) {
    int face = g->k[k].face, value = g->k[k].draw;
    if (value) {
        int victim;
        if (face == F_WRD4) { t->dir = -t->dir; victim = t->nactive == 2 ? seat : next_seat(t, seat); }
        else victim = next_seat(t, seat);
        if (g->nomercy) { t->pending += value; t->last = value; t->cur = victim; t->decision = D_STACK; }
        else { give(g, t, victim, value); advance(t, next_seat(t, victim)); }
        return;
    }
    if (face == F_SKIP) advance(t, next_seat(t, next_seat(t, seat)));
    else if (face == F_REV) {
        t->dir = -t->dir;
        advance(t, t->nactive == 2 && g->nomercy ? seat : next_seat(t, seat));
    } else if (face == F_SE) advance(t, seat);
    else if (face == F_WCR) { t->roulette_by = seat; t->cur = next_seat(t, seat); t->decision = D_ROULETTE; }
    else advance(t, next_seat(t, seat));
}

static void swap_hands(Table *t, int a, int b) {
    uint8_t cnt[MAXK];
    uint64_t set[2] = {t->set[a][0], t->set[a][1]};
    int len = t->hlen[a];
    memcpy(cnt, t->cnt[a], MAXK);
    move_hand(t, a, t->cnt[b], t->set[b], t->hlen[b]);
    move_hand(t, b, cnt, set, len);
}

/* A play of kind k by seat, the card still in the hand. */
static void play(const Game *g, Table *t, int seat, int k, int color, int target, int uno) {
    const Kind *c = &g->k[k];
    lose(t, seat, k);
    t->disc[t->ndisc++] = k;
    t->drawn = NONE;
    t->color = c->wild ? (color >= 0 ? color : t->color) : c->color;
    if (c->face == F_DA) {
        for (int w = 0; w < 2; w++)
            for (uint64_t m = t->set[seat][w] & g->color[c->color + 1][w]; m; m &= m - 1) {
                int j = 64 * w + __builtin_ctzll(m);
                while (t->cnt[seat][j]) { lose(t, seat, j); t->disc[t->ndisc - 1] = j; t->disc[t->ndisc++] = k; }
            }
    }
    if (t->hlen[seat] == 0) { finish(g, t, seat); return; }
    int swapped = NONE, passed = 0;
    if (g->nomercy && c->face == 7) { swap_hands(t, seat, target); swapped = target; }
    else if (g->nomercy && c->face == 0) { /* each hand passes on in the direction of play */
        uint8_t cnt[MAXK];
        int last = prev_seat(t, seat), size = t->hlen[last];
        uint64_t set[2] = {t->set[last][0], t->set[last][1]};
        memcpy(cnt, t->cnt[last], MAXK);
        for (int x = last; x != seat;) {
            int p = prev_seat(t, x);
            move_hand(t, x, t->cnt[p], t->set[p], t->hlen[p]);
            x = p;
        }
        move_hand(t, seat, cnt, set, size);
        passed = 1;
    }
    if (g->nomercy) {
        if (t->hlen[seat] == 1 && !uno) { t->uo[0] = seat; t->nuo = 1; }
        if (swapped >= 0 && t->hlen[swapped] == 1) t->uo[t->nuo++] = swapped;
        else if (passed)
            for (int x = next_seat(t, seat); x != seat; x = next_seat(t, x))
                if (t->hlen[x] == 1) t->uo[t->nuo++] = x;
    }
    if (c->number) advance(t, next_seat(t, seat));
    else effect(g, t, seat, k);
}

/* The number of plays of kind k for seat (colours, Seven targets, Uno variants). */
static int variants(const Game *g, const Table *t, int seat, int k, int *out, int n) {
    const Kind *c = &g->k[k];
    int calls = g->nomercy, size = t->hlen[seat] - 1;
    if (calls && c->face == F_DA)
        for (int w = 0; w < 2; w++)
            for (uint64_t m = t->set[seat][w] & g->color[c->color + 1][w]; m; m &= m - 1) {
                int j = 64 * w + __builtin_ctzll(m);
                size -= t->cnt[seat][j] - (j == k);
            }
    if (calls && c->face == 0 && size > 0) size = t->hlen[prev_seat((Table *)t, seat)];
    int two = calls && size == 1;
    if (g->nomercy && c->face == 7 && t->hlen[seat] > 1) {
        for (int x = 0; x < t->players; x++) {
            if (x == seat || !t->active[x]) continue;
            out[n++] = A_PLAY | k << 4 | x << 12;
            if (t->hlen[x] == 1) out[n++] = A_PLAY | k << 4 | x << 12 | 1 << 20;
        }
        return n;
    }
    int colors = c->wild && c->face != F_WCR ? 4 : 1;
    for (int col = 0; col < colors; col++) {
        int color = colors == 4 ? col : 7;
        out[n++] = A_PLAY | k << 4 | color << 16;
        if (two) out[n++] = A_PLAY | k << 4 | color << 16 | 1 << 20;
    }
    return n;
}

static int legal(const Game *g, const Table *t, int *out) {
    int n = 0, seat = t->cur, plays = 0;
    if (t->decision == D_PLAY || t->decision == D_STACK) {
        int stack = t->decision == D_STACK;
        uint64_t m[2];
        for (int w = 0; w < 2; w++) m[w] = t->set[seat][w] & (stack ? g->draw_ge[t->last][w] : match_set(g, t, w));
        if (!stack && !g->nomercy && (m[0] & ~g->wd4[0] || m[1] & ~g->wd4[1])) {
            m[0] &= ~g->wd4[0]; m[1] &= ~g->wd4[1]; /* a Wild Draw 4 only without another play */
        }
        for (int w = 0; w < 2; w++)
            for (uint64_t b = m[w]; b; b &= b - 1) { plays++; n = variants(g, t, seat, 64 * w + __builtin_ctzll(b), out, n); }
        if (stack) out[n++] = A_TAKE;
        else if (!plays) out[n++] = A_DRAW;
    } else if (t->decision == D_DRAWN) {
        n = variants(g, t, seat, t->drawn, out, n);
    } else {
        for (int col = 0; col < 4; col++) out[n++] = A_COLOR | col << 16;
    }
    for (int i = 0; i < t->nuo; i++) out[n++] = t->uo[i] == seat ? A_UNO : A_CATCH | t->uo[i] << 12;
    return n;
}

static void apply(const Game *g, Table *t, int a) {
    int seat = t->cur, kind = a & 15, k = a >> 4 & 255, target = a >> 12 & 15, color = a >> 16 & 15, uno = a >> 20;
    if (kind == A_UNO) { remove_uo(t, seat); return; }
    if (kind == A_CATCH) {
        int knocked; remove_uo(t, target);
        draw_cards(g, t, target, 2, UNTIL_COUNT, NONE, &knocked);
        if (knocked) { knock_out(g, t, target); if (!t->over && t->cur == target) { t->pending = 0; t->drawn = NONE; advance(t, next_seat(t, target)); } }
        return;
    }
    t->nuo = 0;
    if (kind == A_PLAY) play(g, t, seat, k, color == 7 ? NONE : color, target, uno);
    else if (kind == A_DRAW) {
        int knocked, found = draw_cards(g, t, seat, g->nomercy ? -1 : 1, UNTIL_PLAYABLE, NONE, &knocked);
        if (knocked) { knock_out(g, t, seat); if (!t->over) advance(t, next_seat(t, seat)); }
        else if (found == NONE) advance(t, next_seat(t, seat));
        else {
            t->drawn = found; t->decision = D_DRAWN;
            if (!g->nomercy && !g->k[found].wild) play(g, t, seat, found, NONE, NONE, 0); /* at once */
        }
    } else if (kind == A_TAKE) {
        int total = t->pending; t->pending = 0; t->last = 0;
        give(g, t, seat, total);
        if (!t->over) advance(t, next_seat(t, seat));
    } else if (t->decision == D_ROULETTE) {
        int knocked, by = t->roulette_by; (void)by;
        draw_cards(g, t, seat, -1, UNTIL_COLOR, color, &knocked);
        t->color = color; t->roulette_by = NONE;
        if (knocked) knock_out(g, t, seat);
        if (!t->over) advance(t, next_seat(t, seat));
    } else { t->color = color; t->decision = D_PLAY; effect(g, t, t->dealer, top(t)); }
}

static void deal(const Game *g, Table *t, int players) {
    memset(t, 0, sizeof *t);
    t->players = t->nactive = players;
    memcpy(t->pile, g->deck, sizeof(int) * g->ndeck);
    t->npile = g->ndeck;
    shuffle(t->pile, t->npile);
    int dealer = t->dealer = below(players);
    for (int s = 0; s < players; s++) {
        t->active[s] = 1;
        for (int i = 0; i < 7; i++) gain(t, s, t->pile[--t->npile]);
    }
    t->disc[t->ndisc++] = t->pile[--t->npile];
    t->dir = 1; t->drawn = t->roulette_by = NONE; t->decision = D_PLAY;
    t->cur = next_seat(t, dealer);
    if (g->nomercy) while (!g->k[top(t)].number && t->npile) t->disc[t->ndisc++] = t->pile[--t->npile];
    t->color = g->k[top(t)].color;
    if (!g->k[top(t)].number) {
        if (g->k[top(t)].wild) t->decision = D_COLOR;
        else effect(g, t, dealer, top(t));
    }
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: %s rlcard|no_mercy PLAYERS DECISIONS [SEED]\n", argv[0]); return 2; }
    Game g;
    make_game(&g, strcmp(argv[1], "no_mercy") == 0);
    int players = atoi(argv[2]);
    long decisions = atol(argv[3]), games = 0;
    if (argc > 4) rng_state ^= (uint64_t)atoll(argv[4]) * 0x9E3779B97F4A7C15ull;
    static Table t;
    int acts[512];
    clock_t start = clock();
    deal(&g, &t, players);
    for (long d = 0; d < decisions; d++) {
        int n = legal(&g, &t, acts);
        apply(&g, &t, acts[below(n)]);
        if (t.over) { games++; deal(&g, &t, players); }
    }
    double secs = (double)(clock() - start) / CLOCKS_PER_SEC;
    printf("%ld %ld %.6f\n", games, decisions, secs);
    return 0;
}
