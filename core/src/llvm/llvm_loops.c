/* The loops of an LLVM IR function (llvm_model.h), found the way LLVM's LoopInfo finds them:
 * dominators, back edges to a dominating header, natural loops and their nesting; the trip count
 * where the exit test compares an induction variable (a phi, or an alloca'd counter in
 * unoptimized IR) with a constant. */
#include <stdio.h>
#include <stdlib.h>

#include "llvm/llvm.h"

/* ---- loops ---------------------------------------------------------------------------- */
static bool name_eq(const hs_llvm *m, hs_slice a, const char *s, size_t n) {
  return a.len == n && memcmp(m->text + a.off, s, n) == 0;
}

static int32_t find_block(const hs_llvm *m, const ll_func *f, hs_slice name) {
  const char *s = m->text + name.off;
  if (m->btab) {
    for (uint32_t h = hs_hash(s, name.len) & (m->bcap - 1);; h = (h + 1) & (m->bcap - 1)) {
      uint32_t v = m->btab[h];
      if (!v) return -1;
      if (name_eq(m, m->blocks[f->block_first + v - 1].name, s, name.len)) return (int32_t)(v - 1);
    }
  }
  for (uint32_t i = 0; i < f->n_blocks; i++)
    if (name_eq(m, m->blocks[f->block_first + i].name, s, name.len)) return (int32_t)i;
  return -1;
}

/* The instruction of f whose result is `name` (index into m->instrs), -1 if none. */
static int32_t find_value(const hs_llvm *m, const ll_func *f, const char *s, size_t n) {
  if (m->vtab) {
    for (uint32_t h = hs_hash(s, n) & (m->vcap - 1);; h = (h + 1) & (m->vcap - 1)) {
      uint32_t v = m->vtab[h];
      if (!v) return -1;
      if (name_eq(m, m->instrs[v - 1].result, s, n)) return (int32_t)(v - 1);
    }
  }
  uint32_t first = m->blocks[f->block_first].first;
  uint32_t last = f->n_blocks ? m->blocks[f->block_first + f->n_blocks - 1].first +
                                    m->blocks[f->block_first + f->n_blocks - 1].count
                              : first;
  for (uint32_t i = first; i < last; i++)
    if (name_eq(m, m->instrs[i].result, s, n)) return (int32_t)i;
  return -1;
}

/* Builds the block and value name tables of f (false on allocation failure: lookups then scan). */
static bool build_tables(hs_llvm *m, const ll_func *f) {
  uint32_t nb = f->n_blocks;
  uint32_t first = m->blocks[f->block_first].first;
  uint32_t last = m->blocks[f->block_first + nb - 1].first + m->blocks[f->block_first + nb - 1].count;
  uint32_t bcap = 16, vcap = 16;
  while (bcap < nb * 2u) bcap <<= 1;
  while (vcap < (last - first) * 2u) vcap <<= 1;
  m->btab = calloc(bcap, sizeof *m->btab);
  m->vtab = calloc(vcap, sizeof *m->vtab);
  if (!m->btab || !m->vtab) {
    free(m->btab);
    free(m->vtab);
    m->btab = m->vtab = NULL;
    return false;
  }
  m->bcap = bcap;
  m->vcap = vcap;
  for (uint32_t i = 0; i < nb; i++) {
    hs_slice n = m->blocks[f->block_first + i].name;
    uint32_t h = hs_hash(m->text + n.off, n.len) & (bcap - 1);
    while (m->btab[h]) {
      if (name_eq(m, m->blocks[f->block_first + m->btab[h] - 1].name, m->text + n.off, n.len)) break;
      h = (h + 1) & (bcap - 1);
    }
    if (!m->btab[h]) m->btab[h] = i + 1;
  }
  for (uint32_t i = first; i < last; i++) {
    hs_slice n = m->instrs[i].result;
    if (!n.len) continue;
    uint32_t h = hs_hash(m->text + n.off, n.len) & (vcap - 1);
    while (m->vtab[h]) {
      if (name_eq(m, m->instrs[m->vtab[h] - 1].result, m->text + n.off, n.len)) break;
      h = (h + 1) & (vcap - 1);
    }
    if (!m->vtab[h]) m->vtab[h] = i + 1;
  }
  return true;
}

typedef struct {
  const char *p;
  size_t n;
  bool is_const;
  int64_t c;
} ll_operand;

/* The k-th comma-separated operand of an instruction's rest (after a leading type when given). */
static bool operand(const hs_llvm *m, hs_slice rest, int k, ll_operand *o) {
  const char *t = m->text;
  size_t p = rest.off, end = rest.off + rest.len;
  int idx = 0;
  size_t s = p;
  int depth = 0;
  for (size_t q = p; q <= end; q++) {
    char c = q < end ? t[q] : ',';
    if (c == '(' || c == '[' || c == '<' || c == '{') depth++;
    else if (c == ')' || c == ']' || c == '>' || c == '}') depth--;
    if (c == ',' && depth <= 0) {
      if (idx == k) {
        /* last word of [s, q) */
        size_t e = q;
        while (e > s && (t[e - 1] == ' ')) e--;
        size_t b = e;
        while (b > s && t[b - 1] != ' ') b--;
        o->p = t + b;
        o->n = e - b;
        bool ok;
        o->c = parse_int(t, e, b, &ok);
        o->is_const = ok;
        if (o->n && t[b] == '%') o->p++, o->n--;
        return o->n > 0;
      }
      idx++;
      s = q + 1;
    }
  }
  return false;
}

/* The value named (s, n) is an add or a sub of a value and a constant: that value (*x) and the
 * signed step (*step; a sub's negated), or false. */
static bool add_const(const hs_llvm *m, const ll_func *f, const char *s, size_t n, ll_operand *x, int64_t *step) {
  int32_t vi = find_value(m, f, s, n);
  if (vi < 0) return false;
  const ll_instr *inc = &m->instrs[vi];
  if (inc->kind != LL_I_ADD && inc->kind != LL_I_SUB) return false;
  ll_operand a, b;
  if (!operand(m, inc->rest, 0, &a) || !operand(m, inc->rest, 1, &b)) return false;
  if (inc->kind == LL_I_ADD && a.is_const) {
    ll_operand tmp = a;
    a = b;
    b = tmp;
  }
  if (!b.is_const) return false;
  *x = a;
  *step = inc->kind == LL_I_ADD ? b.c : -b.c;
  return true;
}

typedef struct {
  int64_t start, step;
  bool ok;
} ll_iv;

static bool in_loop(const uint8_t *body, int32_t blk) { return blk >= 0 && body[blk]; }

/* The evolution {start,+,step} of value v at the top of each iteration of the loop (body set),
 * or of its incremented form. Handles a header phi [const, outside], [v+step, inside], and an
 * alloca'd counter: load of an alloca stored once outside (const) and once inside (load+step). */
static ll_iv evolution(const hs_llvm *m, const ll_func *f, const uint8_t *body, const char *s, size_t n, int level) {
  ll_iv r = {0, 0, false};
  if (level > 3) return r;
  int32_t vi = find_value(m, f, s, n);
  if (vi < 0) return r;
  const ll_instr *in = &m->instrs[vi];
  int32_t lb = (int32_t)in->block - (int32_t)f->block_first;
  if (!in_loop(body, lb)) return r;
  if (in->kind == LL_I_ADD || in->kind == LL_I_SUB) {
    ll_operand a, b;
    hs_slice rest = in->rest;
    /* skip flags and the type: operand 0 is "<flags> i64 %x" -> last word */
    if (!operand(m, rest, 0, &a) || !operand(m, rest, 1, &b)) return r;
    if (in->kind == LL_I_ADD && a.is_const && !b.is_const) {
      ll_operand tmp = a;
      a = b;
      b = tmp;
    }
    if (!b.is_const || a.is_const) return r;
    ll_iv base = evolution(m, f, body, a.p, a.n, level + 1);
    if (!base.ok) return r;
    int64_t d = in->kind == LL_I_ADD ? b.c : -b.c;
    if (base.step != d) return r; /* only the increment of the counter itself */
    r.start = base.start + d;
    r.step = d;
    r.ok = true;
    return r;
  }
  if (in->kind == LL_I_PHI) {
    /* phi i64 [ a, %bb ], [ b, %bb2 ] */
    const char *t = m->text;
    size_t p = in->rest.off, end = in->rest.off + in->rest.len;
    int64_t init = 0;
    bool have_init = false;
    const char *nx = NULL;
    size_t nn = 0;
    int pairs = 0;
    for (size_t q = p; q < end; q++) {
      if (t[q] != '[') continue;
      size_t c = q + 1;
      while (c < end && t[c] != ']') c++;
      /* "[ v, %bb ]" */
      size_t vs = hs_skip_sp(t, c, q + 1), ve = vs;
      while (ve < c && t[ve] != ',') ve++;
      size_t vend = ve;
      while (vend > vs && t[vend - 1] == ' ') vend--;
      size_t bs = hs_skip_sp(t, c, ve + 1);
      if (bs < c && t[bs] == '%') bs++;
      size_t a;
      hs_slice bn = scan_name(t, c, bs, &a);
      int32_t bi = find_block(m, f, bn);
      pairs++;
      if (in_loop(body, bi)) {
        if (nx) return r;
        nx = t + vs + (t[vs] == '%');
        nn = vend - vs - (t[vs] == '%');
      } else {
        bool ok;
        init = parse_int(t, vend, vs, &ok);
        if (!ok || have_init) return r;
        have_init = true;
      }
      q = c;
    }
    if (pairs != 2 || !have_init || !nx) return r;
    /* the step: nx must be add(this phi, const) */
    ll_operand a;
    int64_t step;
    if (!add_const(m, f, nx, nn, &a, &step)) return r;
    if (a.n != in->result.len || memcmp(a.p, t + in->result.off, a.n) != 0) return r;
    r.start = init;
    r.step = step;
    r.ok = r.step != 0;
    return r;
  }
  if (in->kind == LL_I_LOAD) {
    /* load i64, ptr %addr: addr an alloca; stores to it: one const outside, one add inside */
    ll_operand a;
    if (!operand(m, in->rest, 1, &a)) return r;
    int32_t ai = find_value(m, f, a.p, a.n);
    if (ai < 0 || m->instrs[ai].kind != LL_I_ALLOCA) return r;
    uint32_t first = m->blocks[f->block_first].first;
    uint32_t last = m->blocks[f->block_first + f->n_blocks - 1].first + m->blocks[f->block_first + f->n_blocks - 1].count;
    int n_out = 0, n_in = 0;
    int64_t init = 0, step = 0;
    if ((uint64_t)(last - first) > ((hs_llvm *)m)->scan_budget) return r; /* a huge function: no count */
    ((hs_llvm *)m)->scan_budget -= last - first;
    for (uint32_t i = first; i < last; i++) {
      const ll_instr *st = &m->instrs[i];
      if (st->kind != LL_I_STORE) continue;
      ll_operand val, ptr;
      if (!operand(m, st->rest, 0, &val) || !operand(m, st->rest, 1, &ptr)) continue;
      if (ptr.n != a.n || memcmp(ptr.p, a.p, a.n) != 0) continue;
      int32_t sb = (int32_t)st->block - (int32_t)f->block_first;
      if (in_loop(body, sb)) {
        n_in++;
        /* val = add (load of the same alloca), const */
        ll_operand x;
        if (!add_const(m, f, val.p, val.n, &x, &step)) return r;
        int32_t li = find_value(m, f, x.p, x.n);
        if (li < 0 || m->instrs[li].kind != LL_I_LOAD) return r;
        ll_operand lp;
        if (!operand(m, m->instrs[li].rest, 1, &lp) || lp.n != a.n || memcmp(lp.p, a.p, a.n) != 0) return r;
      } else {
        n_out++;
        if (!val.is_const) return r;
        init = val.c;
      }
    }
    if (n_in != 1 || n_out != 1 || step == 0) return r;
    r.start = init;
    r.step = step;
    r.ok = true;
    return r;
  }
  return r;
}

/* iterations k >= 0 until `stay(v_k)` fails, v_k = start + k*step; -1 when not found */
static int64_t first_exit(const char *pred, int64_t start, int64_t step, int64_t n) {
  /* normalise to: stay while v < n (increasing) or v > n (decreasing), or v != n */
  bool lt = !strcmp(pred, "slt") || !strcmp(pred, "ult"), le = !strcmp(pred, "sle") || !strcmp(pred, "ule");
  bool gt = !strcmp(pred, "sgt") || !strcmp(pred, "ugt"), ge = !strcmp(pred, "sge") || !strcmp(pred, "uge");
  bool ne = !strcmp(pred, "ne"), eq = !strcmp(pred, "eq");
  if (pred[0] == 'u' && (n < 0 || start < 0)) return -1; /* unsigned wrap-around: not ours to guess */
  if (le) n += 1, lt = true;
  if (ge) n -= 1, gt = true;
  if (lt) {
    if (start >= n) return 0;
    if (step <= 0) return -1;
    return (n - start + step - 1) / step;
  }
  if (gt) {
    if (start <= n) return 0;
    if (step >= 0) return -1;
    return (start - n + (-step) - 1) / (-step);
  }
  if (ne) {
    if ((n - start) % step != 0) return -1;
    int64_t k = (n - start) / step;
    return k >= 0 ? k : -1;
  }
  if (eq) return start != n ? 0 : step != 0 ? 1 : -1; /* stay while v == n */
  return -1;
}

/* An icmp predicate, its negation (!(a p b) is a p' b) and its swap (a p b is b p' a). */
static const char *const PREDS[][3] = {{"eq", "ne", "eq"},    {"ne", "eq", "ne"},    {"slt", "sge", "sgt"}, {"sle", "sgt", "sge"},
                                       {"sgt", "sle", "slt"}, {"sge", "slt", "sle"}, {"ult", "uge", "ugt"}, {"ule", "ugt", "uge"},
                                       {"ugt", "ule", "ult"}, {"uge", "ult", "ule"}};
static const char *pred_as(const char *p, int col) {
  for (size_t i = 0; i < sizeof PREDS / sizeof PREDS[0]; i++)
    if (!strcmp(p, PREDS[i][0])) return PREDS[i][col];
  return NULL;
}
static const char *negate(const char *p) { return pred_as(p, 1); }
static const char *swap_pred(const char *p) { return pred_as(p, 2); }

static int64_t backedge_taken(const hs_llvm *m, const ll_func *f, const uint8_t *body, uint32_t header, uint8_t *top) {
  /* the one exiting block */
  int32_t exiting = -1;
  for (uint32_t i = 0; i < f->n_blocks; i++) {
    if (!body[i]) continue;
    const ll_block *b = &m->blocks[f->block_first + i];
    for (uint32_t s = 0; s < b->n_succ; s++) {
      int32_t to = m->succ_ix[b->succ_first + s];
      if (to < 0 || !body[to - (int32_t)f->block_first]) {
        if (exiting >= 0 && exiting != (int32_t)i) return -1;
        exiting = (int32_t)i;
      }
    }
  }
  if (exiting < 0) return -1;
  const ll_block *eb = &m->blocks[f->block_first + exiting];
  if (!eb->count || eb->n_succ != 2) return -1;
  /* the body runs once more than the back edge is taken unless the exit test sits in a header
   * that is not also a latch (a top-tested loop) */
  *top = (uint32_t)exiting == header;
  for (uint32_t s = 0; s < eb->n_succ; s++)
    if (m->succ_ix[eb->succ_first + s] == (int32_t)(f->block_first + header)) *top = 0;
  const ll_instr *br = &m->instrs[eb->first + eb->count - 1];
  if (br->kind != LL_I_BR) return -1;
  ll_operand c;
  if (!operand(m, br->rest, 0, &c)) return -1;
  int32_t to_true = m->succ_ix[eb->succ_first];
  bool exit_on_true = to_true < 0 || !body[to_true - (int32_t)f->block_first];
  int32_t ci = find_value(m, f, c.p, c.n);
  if (ci < 0 || m->instrs[ci].kind != LL_I_ICMP) return -1;
  const ll_instr *cmp = &m->instrs[ci];
  /* "icmp <pred> <ty> a, b" */
  const char *t = m->text;
  size_t p = hs_skip_sp(t, cmp->rest.off + cmp->rest.len, cmp->rest.off);
  char pred[8] = {0};
  size_t k = 0;
  while (k < 7 && is_ident(t[p + k])) pred[k] = t[p + k], k++;
  ll_operand a, b;
  if (!operand(m, cmp->rest, 0, &a) || !operand(m, cmp->rest, 1, &b)) return -1;
  const char *pr = pred;
  if (a.is_const && !b.is_const) {
    ll_operand tmp = a;
    a = b;
    b = tmp;
    pr = swap_pred(pr);
    if (!pr) return -1;
  }
  if (!b.is_const || a.is_const) return -1;
  ll_iv iv = evolution(m, f, body, a.p, a.n, 0);
  if (!iv.ok) return -1;
  const char *stay = exit_on_true ? negate(pr) : pr;
  if (!stay) return -1;
  return first_exit(stay, iv.start, iv.step, b.c);
}

/* The natural loop of header h: blocks that reach a back edge's source without passing h.
 * Fills body[] (1 = in the loop); returns the number of back edges (0: h heads no loop). */
static uint32_t loop_body(uint32_t nb, uint32_t h, const uint8_t *seen, const int32_t *idom, const uint32_t *pstart,
                          const uint32_t *preds, uint8_t *body, uint32_t *work) {
  uint32_t wn = 0, back = 0;
  bool any = false; /* a back edge at all? (only then is body[] cleared: O(n) per loop, not per block) */
  for (uint32_t pi = pstart[h]; pi < pstart[h + 1] && !any; pi++) {
    int32_t x = (int32_t)preds[pi];
    if (!seen[x]) continue;
    while (x != (int32_t)h && x != 0) x = idom[x];
    any = x == (int32_t)h;
  }
  if (!any) return 0;
  memset(body, 0, nb);
  for (uint32_t pi = pstart[h]; pi < pstart[h + 1]; pi++) {
    uint32_t u = preds[pi];
    if (!seen[u]) continue;
    int32_t x = (int32_t)u;
    while (x != (int32_t)h && x != 0) x = idom[x];
    if (x == (int32_t)h) {
      back++;
      if (!body[u]) body[u] = 1, work[wn++] = u;
    }
  }
  if (!back) return 0;
  body[h] = 1;
  while (wn) {
    uint32_t v = work[--wn];
    if (v == h) continue;
    for (uint32_t pi = pstart[v]; pi < pstart[v + 1]; pi++) {
      uint32_t u = preds[pi];
      if (seen[u] && !body[u]) body[u] = 1, work[wn++] = u;
    }
  }
  return back;
}

void hs_ll_finish_function(hs_llvm *m, ll_func *f) {
  uint32_t nb = f->n_blocks;
  /* resolve successors */
  if (!m->succ_ix || m->n_succ) {
    int32_t *ix = realloc(m->succ_ix, (m->n_succ ? m->n_succ : 1) * sizeof *ix);
    if (!ix) return;
    m->succ_ix = ix;
  }
  if (nb) build_tables(m, f);
  m->scan_budget = 20000000u;
  for (uint32_t i = 0; i < nb; i++) {
    ll_block *b = &m->blocks[f->block_first + i];
    for (uint32_t s = 0; s < b->n_succ; s++) {
      int32_t bi = find_block(m, f, m->succ[b->succ_first + s]);
      m->succ_ix[b->succ_first + s] = bi < 0 ? -1 : (int32_t)f->block_first + bi;
    }
  }
  if (nb == 0 || nb > 20000) {
    if (nb) hs_ll_warn(m, HS_W_SKIPPED_LINE, f->line, "function @%.*s has %u blocks: loops not analysed", (int)f->name.len, m->text + f->name.off, nb);
    free(m->btab);
    free(m->vtab);
    m->btab = m->vtab = NULL;
    return;
  }
  /* reverse post-order, immediate dominators (Cooper, Harvey, Kennedy) */
  int32_t *rpo = malloc(nb * sizeof *rpo), *order = malloc(nb * sizeof *order), *idom = malloc(nb * sizeof *idom);
  uint32_t *stack = malloc(nb * sizeof *stack), *it = calloc(nb, sizeof *it);
  uint8_t *seen = calloc(nb, 1);
  uint8_t *body = calloc(nb, 1);
  uint32_t *work = malloc(nb * sizeof *work);
  uint32_t *pstart = calloc(nb + 1, sizeof *pstart), *preds = NULL;
  if (!rpo || !order || !idom || !stack || !it || !seen || !body || !work || !pstart) goto out;
  {
    uint32_t total = 0;
    for (uint32_t u = 0; u < nb; u++) {
      const ll_block *b = &m->blocks[f->block_first + u];
      for (uint32_t s = 0; s < b->n_succ; s++) {
        int32_t w = m->succ_ix[b->succ_first + s];
        if (w >= 0) pstart[w - f->block_first + 1]++, total++;
      }
    }
    for (uint32_t u = 0; u < nb; u++) pstart[u + 1] += pstart[u];
    preds = malloc((total ? total : 1) * sizeof *preds);
    if (!preds) goto out;
    for (uint32_t u = 0; u < nb; u++) it[u] = pstart[u];
    for (uint32_t u = 0; u < nb; u++) {
      const ll_block *b = &m->blocks[f->block_first + u];
      for (uint32_t s = 0; s < b->n_succ; s++) {
        int32_t w = m->succ_ix[b->succ_first + s];
        if (w >= 0) preds[it[w - f->block_first]++] = u;
      }
    }
    memset(it, 0, nb * sizeof *it);
  }
  uint32_t sp = 0, n_post = 0;
  stack[sp++] = 0;
  seen[0] = 1;
  while (sp) {
    uint32_t v = stack[sp - 1];
    const ll_block *b = &m->blocks[f->block_first + v];
    if (it[v] < b->n_succ) {
      int32_t w = m->succ_ix[b->succ_first + it[v]++];
      if (w >= 0) {
        uint32_t wl = (uint32_t)w - f->block_first;
        if (!seen[wl]) {
          seen[wl] = 1;
          stack[sp++] = wl;
        }
      }
    } else {
      order[v] = (int32_t)n_post;
      rpo[n_post++] = (int32_t)v;
      sp--;
    }
  }
  /* rpo[] now holds post-order; order[v] its post-order number */
  for (uint32_t i = 0; i < nb; i++) idom[i] = -1;
  idom[0] = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    for (int32_t k = (int32_t)n_post - 1; k >= 0; k--) {
      uint32_t v = (uint32_t)rpo[k];
      if (v == 0) continue;
      int32_t nd = -1;
      /* predecessors: scan all reachable blocks' successor lists */
      for (uint32_t pi = pstart[v]; pi < pstart[v + 1]; pi++) {
        uint32_t u = preds[pi];
        if (!seen[u] || idom[u] < 0) continue;
        if (nd < 0) {
          nd = (int32_t)u;
          continue;
        }
        int32_t x = (int32_t)u, y = nd;
        while (x != y) {
          while (order[x] < order[y]) x = idom[x];
          while (order[y] < order[x]) y = idom[y];
        }
        nd = x;
      }
      if (nd >= 0 && idom[v] != nd) {
        idom[v] = nd;
        changed = true;
      }
    }
  }
  /* natural loops, one per header (back edges u->h with h dominating u) */
  uint32_t loops_begin = m->n_loops;
  for (int32_t k = (int32_t)n_post - 1; k >= 0; k--) {
    uint32_t h = (uint32_t)rpo[k];
    uint32_t wn = loop_body(nb, h, seen, idom, pstart, preds, body, work);
    if (!wn) continue;
    bool ok;
    ll_loop *L = HS_VEC_PUSH(m->loops, m->n_loops, m->cap_loops, ok);
    if (!ok) goto out;
    memset(L, 0, sizeof *L);
    L->header = f->block_first + h;
    L->first_line = UINT32_MAX;
    for (uint32_t u = 0; u < nb; u++) {
      if (!body[u]) continue;
      const ll_block *b = &m->blocks[f->block_first + u];
      uint32_t last = b->count ? m->instrs[b->first + b->count - 1].line : b->line;
      if (b->line < L->first_line) L->first_line = b->line;
      if (last > L->last_line) L->last_line = last;
      L->n_blocks++;
    }
    L->backedge_taken = backedge_taken(m, f, body, h, &L->top_tested);
  }
  /* depth: loop A contains loop B when B's header is in A's body. Recompute bodies per pair. */
  for (uint32_t i = loops_begin; i < m->n_loops; i++) m->loops[i].depth = 1;
  for (uint32_t i = loops_begin; i < m->n_loops; i++) {
    /* recompute body of loop i */
    uint32_t h = m->loops[i].header - f->block_first;
    uint32_t wn = loop_body(nb, h, seen, idom, pstart, preds, body, work);
    (void)wn;
    for (uint32_t j = loops_begin; j < m->n_loops; j++)
      if (j != i && body[m->loops[j].header - f->block_first]) m->loops[j].depth++;
  }
  f->n_loops = m->n_loops - loops_begin;
out:
  free(rpo);
  free(order);
  free(idom);
  free(stack);
  free(it);
  free(seen);
  free(body);
  free(work);
  free(pstart);
  free(preds);
  free(m->btab);
  free(m->vtab);
  m->btab = m->vtab = NULL;
}
