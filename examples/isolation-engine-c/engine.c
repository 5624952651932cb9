/*
 * c-isolation: an Isolation engine that speaks heurtune's engine protocol
 * (docs/engine-protocol.md). Single file, C99, libc only.
 *
 * Rules (as heurtune's referee, src/heurtune/games/isolation.py): a 7x7 board,
 * square = row * 7 + col, row 0 is rank 1, col 0 is file a ("a1" = 0,
 * "g7" = 48). Each player's first move may go to any unblocked square;
 * afterwards a player jumps like a chess knight to an unblocked square. Every
 * square stood on stays blocked for both. The side to move with no legal move
 * loses. A move is written as its destination square, e.g. "d4".
 *
 * Search: iterative-deepening negamax alpha-beta with a Zobrist-hashed
 * transposition table and a history heuristic. Limits: go nodes N (every
 * position entered counts; depth 1 always completes), movetime MS, depth D,
 * seed S (shuffles the root moves: same position + limits + seed => same move).
 *
 * Evaluation, for the player to move at the root:
 *     own * (own mobility) + opp * (opponent mobility)
 *   + centre * (-(squared distance of own knight from d4) / 10)
 * With own = 1, opp = -1, centre = 0 it is heurtune's "improved" (AB_Improved).
 * Won / lost positions score +-(1e9 - ply).
 *
 * Build: cc -O2 -std=c99 -Wall -Wextra -o isolation-engine engine.c
 */

#define _POSIX_C_SOURCE 199309L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ board */

#define SIZE 7
#define SQUARES 49
#define FULL ((UINT64_C(1) << SQUARES) - 1)
#define MAX_PLY 64

static uint64_t KNIGHT[SQUARES];
static double CENTRE[SQUARES]; /* -(squared distance from d4) / 10 */
static uint64_t Z_POS[2][SQUARES], Z_BLOCK[SQUARES], Z_STM;

typedef struct {
    uint64_t blocked; /* every square stood on, both knights' squares included */
    int pos[2];       /* current square of each side, -1 before its first move */
    int stm;          /* side to move: 0 or 1 */
    int ply;
    uint64_t hash;
} Board;

static Board g;

static int popcnt(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    while (x) { x &= x - 1; n++; }
    return n;
#endif
}

static int lsb(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) { x >>= 1; n++; }
    return n;
#endif
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static void init_tables(void)
{
    static const int d[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2},
                                {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    uint64_t s = UINT64_C(0x49736F6C6174);
    for (int sq = 0; sq < SQUARES; sq++) {
        int r = sq / SIZE, c = sq % SIZE;
        KNIGHT[sq] = 0;
        for (int k = 0; k < 8; k++) {
            int rr = r + d[k][0], cc = c + d[k][1];
            if (rr >= 0 && rr < SIZE && cc >= 0 && cc < SIZE)
                KNIGHT[sq] |= UINT64_C(1) << (rr * SIZE + cc);
        }
        CENTRE[sq] = -(double)((r - 3) * (r - 3) + (c - 3) * (c - 3)) / 10.0;
        Z_POS[0][sq] = splitmix64(&s);
        Z_POS[1][sq] = splitmix64(&s);
        Z_BLOCK[sq] = splitmix64(&s);
    }
    Z_STM = splitmix64(&s);
}

static void board_reset(void)
{
    g.blocked = 0;
    g.pos[0] = g.pos[1] = -1;
    g.stm = 0;
    g.ply = 0;
    g.hash = 0;
}

/* Squares `side` could move to now. */
static inline uint64_t targets(int side)
{
    int p = g.pos[side];
    return (p < 0 ? FULL : KNIGHT[p]) & ~g.blocked;
}

/* Make a move (a legal destination square); returns the previous square. */
static inline int make_move(int sq)
{
    int s = g.stm, prev = g.pos[s];
    uint64_t h = g.hash;
    if (prev >= 0)
        h ^= Z_POS[s][prev];
    h ^= Z_POS[s][sq] ^ Z_BLOCK[sq] ^ Z_STM;
    g.hash = h;
    g.blocked |= UINT64_C(1) << sq;
    g.pos[s] = sq;
    g.stm = s ^ 1;
    g.ply++;
    return prev;
}

static inline void unmake_move(int sq, int prev, uint64_t hash)
{
    int s = g.stm ^ 1;
    g.blocked &= ~(UINT64_C(1) << sq);
    g.pos[s] = prev;
    g.stm = s;
    g.ply--;
    g.hash = hash;
}

/* "d4" -> 24; -1 when not a square name. */
static int parse_square(const char *t)
{
    if (t[0] < 'a' || t[0] > 'g' || t[1] < '1' || t[1] > '7' || t[2] != '\0')
        return -1;
    return (t[1] - '1') * SIZE + (t[0] - 'a');
}

static void square_name(int sq, char out[3])
{
    out[0] = (char)('a' + sq % SIZE);
    out[1] = (char)('1' + sq / SIZE);
    out[2] = '\0';
}

/* ---------------------------------------------------------------- options */

typedef struct {
    const char *name;
    double value, def, min, max;
} Option;

static Option options[] = {
    {"own", 1.0, 1.0, -5.0, 5.0},
    {"opp", -1.0, -1.0, -5.0, 5.0},
    {"centre", 0.0, 0.0, -2.0, 2.0},
};
#define N_OPTIONS ((int)(sizeof options / sizeof options[0]))
#define W_OWN (options[0].value)
#define W_OPP (options[1].value)
#define W_CENTRE (options[2].value)

/* ----------------------------------------------------------------- search */

#define WIN 1e9
#define MATE_BOUND 1e8 /* |score| above this: a proven win or loss */
#define INF 1e18

enum { TT_NONE = 0, TT_EXACT = 1, TT_LOWER = 2, TT_UPPER = 3 };

typedef struct {
    uint64_t key;
    double score;
    int8_t depth;
    uint8_t flag;
    int8_t move;
    uint8_t gen;
} TTEntry;

#define TT_BITS 18
#define TT_SIZE (1u << TT_BITS)
static TTEntry *tt;
static uint8_t tt_gen;

static uint32_t history[2][SQUARES];

static int root_side;
static long long nodes, node_limit; /* node_limit 0: none */
static double time_limit_ms;        /* 0: none */
static struct timespec t_start;
static int can_abort, aborted;

static double elapsed_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t_start.tv_sec) * 1e3 +
           (double)(t.tv_nsec - t_start.tv_nsec) / 1e6;
}

static inline double evaluate(int stm, uint64_t mine, uint64_t theirs)
{
    int own, opp, me;
    if (stm == root_side) {
        own = popcnt(mine);
        opp = popcnt(theirs);
        me = g.pos[stm];
    } else {
        own = popcnt(theirs);
        opp = popcnt(mine);
        me = g.pos[stm ^ 1];
    }
    double e = W_OWN * own + W_OPP * opp;
    if (me >= 0)
        e += W_CENTRE * CENTRE[me];
    return stm == root_side ? e : -e;
}

static inline double to_tt(double s, int ply)
{
    return s > MATE_BOUND ? s + ply : s < -MATE_BOUND ? s - ply : s;
}

static inline double from_tt(double s, int ply)
{
    return s > MATE_BOUND ? s - ply : s < -MATE_BOUND ? s + ply : s;
}

/* Returns true when the search must stop now (only after depth 1 is done). */
static inline int out_of_budget(void)
{
    if (!can_abort)
        return 0;
    if (node_limit > 0 && nodes >= node_limit)
        return aborted = 1;
    if (time_limit_ms > 0 && (nodes & 1023) == 0 && elapsed_ms() >= time_limit_ms)
        return aborted = 1;
    return 0;
}

static double search(int depth, double alpha, double beta, int ply)
{
    if (aborted || out_of_budget())
        return 0;
    nodes++;

    int stm = g.stm;
    uint64_t mine = targets(stm);
    if (!mine)
        return -(WIN - ply); /* stuck: lost */
    uint64_t theirs = targets(stm ^ 1);
    if (!theirs)
        return WIN - (ply + 1); /* we move, they stay stuck: won */
    if (depth <= 0 || ply >= MAX_PLY)
        return evaluate(stm, mine, theirs);

    uint64_t hash = g.hash;
    TTEntry *e = &tt[hash & (TT_SIZE - 1)];
    int tt_move = -1;
    if (e->key == hash && e->gen == tt_gen && e->flag != TT_NONE) {
        tt_move = e->move;
        if (e->depth >= depth) {
            double s = from_tt(e->score, ply);
            if (e->flag == TT_EXACT || (e->flag == TT_LOWER && s >= beta) ||
                (e->flag == TT_UPPER && s <= alpha))
                return s;
        }
    }

    /* moves: the table's move first, then by history (insertion sort) */
    int moves[SQUARES];
    uint32_t keys[SQUARES];
    int n = 0;
    const uint32_t *hist = history[stm];
    for (uint64_t t = mine; t; t &= t - 1) {
        int m = lsb(t);
        uint32_t k = m == tt_move ? UINT32_MAX : hist[m];
        int i = n++;
        while (i > 0 && keys[i - 1] < k) {
            keys[i] = keys[i - 1];
            moves[i] = moves[i - 1];
            i--;
        }
        keys[i] = k;
        moves[i] = m;
    }

    double alpha0 = alpha, best = -INF;
    int best_move = moves[0];
    for (int i = 0; i < n; i++) {
        int m = moves[i];
        int prev = make_move(m);
        double s = -search(depth - 1, -beta, -alpha, ply + 1);
        unmake_move(m, prev, hash);
        if (aborted)
            return 0;
        if (s > best) {
            best = s;
            best_move = m;
            if (s > alpha) {
                alpha = s;
                if (alpha >= beta) {
                    history[stm][m] += (uint32_t)(depth * depth);
                    break;
                }
            }
        }
    }

    e->key = hash;
    e->gen = tt_gen;
    e->depth = (int8_t)depth;
    e->move = (int8_t)best_move;
    e->score = to_tt(best, ply);
    e->flag = best <= alpha0 ? TT_UPPER : best >= beta ? TT_LOWER : TT_EXACT;
    return best;
}

static uint64_t xs_state;

static uint64_t xorshift64s(void)
{
    uint64_t x = xs_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    xs_state = x;
    return x * UINT64_C(0x2545F4914F6CDD1D);
}

typedef struct {
    long long nodes_limit;
    double movetime;
    int depth;
    uint64_t seed;
} Limits;

static void go(const Limits *lim)
{
    char name[3];
    int moves[SQUARES], n = 0;

    clock_gettime(CLOCK_MONOTONIC, &t_start);
    for (uint64_t t = targets(g.stm); t; t &= t - 1)
        moves[n++] = lsb(t);
    if (n == 0) {
        printf("info depth 0 nodes 0\nbestmove none\n");
        fflush(stdout);
        return;
    }

    /* root order: a seeded shuffle (xorshift64*), so ties break reproducibly */
    uint64_t sm = lim->seed;
    xs_state = splitmix64(&sm);
    if (xs_state == 0)
        xs_state = UINT64_C(0x9E3779B97F4A7C15);
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(xorshift64s() % (uint64_t)(i + 1));
        int t = moves[i];
        moves[i] = moves[j];
        moves[j] = t;
    }

    /* a fresh search: the table from earlier moves is invisible (new generation) */
    if (++tt_gen == 0) {
        memset(tt, 0, sizeof(TTEntry) * TT_SIZE);
        tt_gen = 1;
    }
    memset(history, 0, sizeof history);
    root_side = g.stm;
    nodes = 0;
    node_limit = lim->nodes_limit;
    time_limit_ms = lim->movetime;
    can_abort = 0;
    aborted = 0;

    int empties = SQUARES - popcnt(g.blocked);
    int max_depth = lim->depth > 0 ? lim->depth : MAX_PLY;
    if (max_depth > empties)
        max_depth = empties;
    if (max_depth > MAX_PLY)
        max_depth = MAX_PLY;
    if (max_depth < 1)
        max_depth = 1;

    int best_move = moves[0], done_depth = 0;
    uint64_t hash = g.hash;
    for (int depth = 1; depth <= max_depth; depth++) {
        if (depth > 1) {
            can_abort = 1;
            if (n == 1)
                break; /* one legal move: nothing to choose */
            if (node_limit > 0 && nodes >= node_limit)
                break;
            /* a deeper iteration would rarely finish in the time left */
            if (time_limit_ms > 0 && elapsed_ms() >= time_limit_ms * 0.5)
                break;
        }
        nodes++; /* the root */
        double alpha = -INF, best_score = -INF;
        int best_i = -1;
        for (int i = 0; i < n; i++) {
            int prev = make_move(moves[i]);
            double s = -search(depth - 1, -INF, -alpha, 1);
            unmake_move(moves[i], prev, hash);
            if (aborted)
                break;
            if (s > best_score) {
                best_score = s;
                best_i = i;
                if (s > alpha)
                    alpha = s;
            }
        }
        if (aborted)
            break; /* keep the last completed iteration's move */
        done_depth = depth;
        best_move = moves[best_i];
        /* the best move first next time; the rest keep their (shuffled) order */
        for (int i = best_i; i > 0; i--)
            moves[i] = moves[i - 1];
        moves[0] = best_move;
        if (best_score > MATE_BOUND || best_score < -MATE_BOUND)
            break; /* proven */
    }

    square_name(best_move, name);
    printf("info depth %d nodes %lld\nbestmove %s\n", done_depth, nodes, name);
    fflush(stdout);
}

/* ---------------------------------------------------------------- protocol */

#define LINE_MAX_BYTES 65536
#define MAX_TOKENS 1024

static int streq_ci(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

static int tokenize(char *line, char **tok)
{
    int n = 0;
    char *p = line;
    while (*p && n < MAX_TOKENS) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p)
            break;
        tok[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            p++;
        if (*p)
            *p++ = '\0';
    }
    return n;
}

static int parse_ll(const char *s, long long *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end)
        return 0;
    *out = v;
    return 1;
}

static void cmd_uci(void)
{
    printf("id name c-isolation\n");
    printf("id game isolation\n");
    for (int i = 0; i < N_OPTIONS; i++)
        printf("option name %s type float default %g min %g max %g\n", options[i].name,
               options[i].def, options[i].min, options[i].max);
    printf("uciok\n");
    fflush(stdout);
}

static void cmd_setoption(char **tok, int n)
{
    /* setoption name NAME value VALUE */
    const char *name = NULL, *value = NULL;
    for (int i = 1; i + 1 < n; i++) {
        if (!name && strcmp(tok[i], "name") == 0)
            name = tok[++i];
        else if (name && strcmp(tok[i], "value") == 0)
            value = tok[++i];
    }
    if (!name || !value)
        return;
    char *end;
    double v = strtod(value, &end);
    if (end == value || *end || !isfinite(v))
        return;
    for (int i = 0; i < N_OPTIONS; i++) {
        if (streq_ci(name, options[i].name)) {
            if (v < options[i].min) v = options[i].min;
            if (v > options[i].max) v = options[i].max;
            options[i].value = v;
            return;
        }
    }
}

static void cmd_position(char **tok, int n)
{
    board_reset();
    int i = 1;
    while (i < n && strcmp(tok[i], "moves") != 0)
        i++; /* "startpos" (the only start Isolation has) */
    for (i++; i < n; i++) {
        int sq = parse_square(tok[i]);
        if (sq < 0 || !(targets(g.stm) >> sq & 1)) {
            fprintf(stderr, "c-isolation: ignoring bad move '%.16s'\n", tok[i]);
            continue;
        }
        make_move(sq);
    }
}

static void cmd_go(char **tok, int n)
{
    Limits lim = {0, 0.0, 0, 0};
    int any = 0;
    for (int i = 1; i + 1 < n; i++) {
        long long v;
        if (strcmp(tok[i], "nodes") == 0 && parse_ll(tok[i + 1], &v)) {
            lim.nodes_limit = v > 0 ? v : 1;
            any = 1;
            i++;
        } else if (strcmp(tok[i], "movetime") == 0 && parse_ll(tok[i + 1], &v)) {
            lim.movetime = v > 0 ? (double)v : 1.0;
            any = 1;
            i++;
        } else if (strcmp(tok[i], "depth") == 0 && parse_ll(tok[i + 1], &v)) {
            lim.depth = v < 1 ? 1 : v > MAX_PLY ? MAX_PLY : (int)v;
            any = 1;
            i++;
        } else if (strcmp(tok[i], "seed") == 0) {
            char *end;
            unsigned long long s = strtoull(tok[i + 1], &end, 10);
            if (end != tok[i + 1] && !*end)
                lim.seed = (uint64_t)s;
            i++;
        }
    }
    if (!any)
        lim.movetime = 1000.0; /* bare "go": a second */
    go(&lim);
}

int main(void)
{
    static char line[LINE_MAX_BYTES];
    static char *tok[MAX_TOKENS];

    setvbuf(stdout, NULL, _IOLBF, 0);
    init_tables();
    tt = calloc(TT_SIZE, sizeof(TTEntry));
    if (!tt) {
        fprintf(stderr, "c-isolation: out of memory\n");
        return 1;
    }
    board_reset();

    while (fgets(line, sizeof line, stdin)) {
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            /* an over-long line: skip the rest of it and ignore it */
            int c;
            while ((c = getchar()) != EOF && c != '\n')
                ;
            continue;
        }
        int n = tokenize(line, tok);
        if (n == 0)
            continue;
        const char *cmd = tok[0];
        if (strcmp(cmd, "uci") == 0)
            cmd_uci();
        else if (strcmp(cmd, "isready") == 0) {
            printf("readyok\n");
            fflush(stdout);
        } else if (strcmp(cmd, "setoption") == 0)
            cmd_setoption(tok, n);
        else if (strcmp(cmd, "ucinewgame") == 0)
            board_reset(); /* RULE=VALUE words: Isolation has no rule options */
        else if (strcmp(cmd, "position") == 0)
            cmd_position(tok, n);
        else if (strcmp(cmd, "go") == 0)
            cmd_go(tok, n);
        else if (strcmp(cmd, "quit") == 0)
            break;
        /* anything else: ignored */
    }
    free(tt);
    return 0;
}
