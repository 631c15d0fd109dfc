/* The time in the compile diff (issue 38): a profile of each side's program running joined to
 * the diff's instruction matching (analyses/diff.c, which knows nothing of profiles).
 *
 * Per side, the program is the one whose HLO module is the side's module: a program of the
 * profile named as one of the side's modules (jit_f), all of whose profiled ops are
 * instructions of that module (another compile of jit_f, or a different jit_f, names ops the
 * module does not have); among several, the one with the most runs. None: the time of that
 * side is unknown, and the result says why rather than give another program's time.
 *
 * Times are the timeline's: a program's per_run_ps (per device, the mean of each device's
 * envelope / runs) and an op's per run time (its total over runs x devices). An op row of A's
 * profile is joined through A's instruction of that name, its partner in B (the diff's
 * matching) and B's row of that instruction's name; rows left over on either side stand alone.
 *
 * Noise: two profiles of one and the same compile (fixtures/diff-pairs/cpu-jax-0.12.0.1/
 * mlp_softmax-opt0, whose two sides are byte-identical) differ by a few percent per run and
 * per op on the CPU, and by less than half a percent of the run per op; see README "diff".
 * So the totals "differ" when they differ by more than TIME_NOISE_PCT, and an op's change
 * counts (is sorted by, is named in the verdict) when it exceeds OP_NOISE_PCT of the slower
 * side's time per run. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyses/analyses.h"
#include "profile/profile.h"

#define TIME_NOISE_PCT 5.0 /* of A's time per run */
#define OP_NOISE_PCT 1.0   /* of the slower side's time per run */

typedef struct {
  const char *s; /* the name, in the document's text */
  uint32_t len, instr;
} name_ref;

typedef struct {
  const hs_doc *d;
  name_ref *by_name;    /* the chosen module's instructions, sorted by name */
  uint32_t n;
  int32_t module;    /* the side's module, -1 when none */
  uint32_t prog;     /* the program, HS_NONE when unknown */
  char why[700];     /* why the time is unknown */
} side_time;

static int name_cmp(const char *a, size_t an, const char *b, size_t bn) {
  int c = memcmp(a, b, an < bn ? an : bn);
  return c ? c : (an > bn) - (an < bn);
}
static int named_cmp(const void *x, const void *y) {
  const name_ref *a = x, *b = y;
  return name_cmp(a->s, a->len, b->s, b->len);
}

/* The module's instructions by name (the reader's synthetic ones have none). */
static bool index_module(side_time *S, int32_t m) {
  free(S->by_name);
  S->by_name = NULL;
  S->n = 0;
  const hs_doc *d = S->d;
  const hs_module *mod = &d->modules[m];
  size_t total = 0;
  for (uint32_t c = mod->first_comp; c < mod->first_comp + mod->comp_count; c++) total += d->comps[c].count;
  S->by_name = malloc((total + 1) * sizeof *S->by_name);
  if (!S->by_name) return false;
  for (uint32_t c = mod->first_comp; c < mod->first_comp + mod->comp_count; c++)
    for (uint32_t i = d->comps[c].first; i < d->comps[c].first + d->comps[c].count; i++)
      if (d->instrs[i].name.len && !d->instrs[i].synth) S->by_name[S->n++] = (name_ref){hs_sp(d, d->instrs[i].name), (uint32_t)d->instrs[i].name.len, i};
  qsort(S->by_name, S->n, sizeof *S->by_name, named_cmp);
  return true;
}

static int32_t find_instr(const side_time *S, const char *name) {
  size_t k = strlen(name);
  uint32_t lo = 0, hi = S->n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (name_cmp(S->by_name[mid].s, S->by_name[mid].len, name, k) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < S->n && name_cmp(S->by_name[lo].s, S->by_name[lo].len, name, k) == 0 ? (int32_t)S->by_name[lo].instr : -1;
}

static bool slice_is(const hs_doc *d, hs_slice s, const char *z) { return s.len == strlen(z) && memcmp(hs_sp(d, s), z, s.len) == 0; }

static void put(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *buf, size_t cap, const char *fmt, ...) {
  size_t n = strlen(buf);
  if (n + 1 >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + n, cap - n, fmt, ap);
  va_end(ap);
}

/* Which program of the profile ran this side's module (S->prog, S->module), or why none. */
static bool pick_program(const hs_profile *p, side_time *S) {
  const hs_doc *d = S->d;
  S->prog = HS_NONE;
  S->module = -1;
  S->why[0] = 0;
  uint32_t named = HS_NONE, named_misses = 0;
  int32_t named_module = -1;
  char missing[300] = "";
  for (uint32_t m = 0; m < d->n_modules && S->prog == HS_NONE; m++) {
    if (!d->modules[m].name.len) continue;
    bool indexed = false;
    for (uint32_t g = 0; g < p->n_progs; g++) {
      const hs_prof_program *pg = &p->progs[g];
      if (pg->name == HS_NONE || !slice_is(d, d->modules[m].name, p->strs[pg->name].s)) continue;
      if (!indexed && !index_module(S, (int32_t)m)) return false;
      indexed = true;
      uint32_t ops = 0, misses = 0;
      char miss[300] = "";
      for (uint32_t i = 0; i < p->n_ops; i++) {
        if (p->ops[i].prog != g) continue;
        ops++;
        if (find_instr(S, p->strs[p->ops[i].name].s) < 0 && misses++ < 3)
          put(miss, sizeof miss, "%s%.80s", misses > 1 ? ", " : "", p->strs[p->ops[i].name].s);
      }
      /* the HloModuleProto the profile embeds for this program, when it does: the same
         instructions by name, all of them (another compile of jit_f may share its op names) */
      uint32_t embedded = 0, emb_missing = 0;
      for (uint32_t h = 0; pg->has_pid && h < p->n_hlos; h++) {
        if (p->hlos[h].program_id != pg->program_id || p->hlos[h].name == HS_NONE) continue;
        embedded++;
        if (find_instr(S, p->strs[p->hlos[h].name].s) < 0 && emb_missing++ < 3 && misses < 3)
          put(miss, sizeof miss, "%s%.80s", misses + emb_missing > 1 ? ", " : "", p->strs[p->hlos[h].name].s);
      }
      if (embedded && (emb_missing || embedded != S->n)) misses += emb_missing ? emb_missing : 1;
      if (embedded && !emb_missing && embedded != S->n && misses == 1 && !miss[0])
        snprintf(miss, sizeof miss, "its embedded HLO holds %u instructions, the text %u", embedded, S->n);
      if (ops && !misses) {
        if (S->prog == HS_NONE || pg->runs > p->progs[S->prog].runs) S->prog = g, S->module = (int32_t)m;
      } else if (named == HS_NONE) {
        named = g, named_misses = misses, named_module = (int32_t)m;
        snprintf(missing, sizeof missing, "%s", miss);
      }
    }
  }
  if (S->prog != HS_NONE) return index_module(S, S->module);
  if (named != HS_NONE) {
    const hs_prof_program *pg = &p->progs[named];
    if (named_misses)
      snprintf(S->why, sizeof S->why, "its profile ran %s, but not this compile of it (%s%s are not instructions of this module)",
               p->strs[pg->name].s, missing, named_misses > 3 ? ", ..." : "");
    else
      snprintf(S->why, sizeof S->why, "its profile ran %s but counted no op of it", p->strs[pg->name].s);
    (void)named_module;
    return true;
  }
  char mod[200] = "", ran[300] = "";
  if (d->n_modules) snprintf(mod, sizeof mod, "%.*s", (int)(d->modules[0].name.len < 150 ? d->modules[0].name.len : 150), hs_sp(d, d->modules[0].name));
  uint32_t listed = 0;
  for (uint32_t g = 0; g < p->n_progs; g++) {
    if (p->progs[g].name == HS_NONE) continue;
    if (listed++ < 3) put(ran, sizeof ran, "%s%.80s", listed > 1 ? ", " : "", p->strs[p->progs[g].name].s);
  }
  if (listed)
    snprintf(S->why, sizeof S->why, "its profile holds no run of %s (it ran %s%s)", mod[0] ? mod : "its module", ran, listed > 3 ? ", ..." : "");
  else
    snprintf(S->why, sizeof S->why, "its profile holds no run of %s (no program with a name was counted)", mod[0] ? mod : "its module");
  return true;
}

static json_t *prog_json(const hs_profile *p, uint32_t g) {
  if (g == HS_NONE) return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "name", hs_prof_json_str(p, p->progs[g].name));
  json_object_set_new(o, "program_id", hs_prof_json_pid(p->progs[g].has_pid, p->progs[g].program_id));
  return o;
}

typedef struct {
  json_t *e;
  int64_t a_ps, b_ps; /* -1: null */
  const char *name;   /* for ties: A's name, else B's */
  int64_t key;        /* the change in time per run, 0 under the noise threshold */
} op_row;

static int64_t change_of(const op_row *r) { return (r->b_ps < 0 ? 0 : r->b_ps) - (r->a_ps < 0 ? 0 : r->a_ps); }
static int64_t key_of(const op_row *r, uint64_t noise) {
  int64_t c = change_of(r);
  if (c < 0) c = -c;
  return (uint64_t)c < noise ? 0 : c;
}
static int op_cmp(const void *x, const void *y) {
  const op_row *a = x, *b = y;
  int64_t ka = a->key, kb = b->key;
  if (ka != kb) return ka > kb ? -1 : 1;
  int64_t ma = a->a_ps > a->b_ps ? a->a_ps : a->b_ps, mb = b->a_ps > b->b_ps ? b->a_ps : b->b_ps;
  if (ma != mb) return ma > mb ? -1 : 1;
  return strcmp(a->name, b->name);
}

static json_t *ps_or_null(int64_t v) { return v < 0 ? json_null() : json_integer(v); }

static json_t *instr_name(const hs_doc *d, int32_t i) { return i < 0 ? json_null() : hs_json_slice(d, d->instrs[i].name); }
static json_t *instr_line(const hs_doc *d, int32_t i) { return i < 0 || !d->instrs[i].line ? json_null() : json_integer(d->instrs[i].line); }

/* The op rows of a side's program, each with its instruction (-1 when the module has none). */
static uint32_t *rows_of(const hs_profile *p, uint32_t g, uint32_t *n) {
  *n = 0;
  uint32_t *v = malloc(((size_t)p->n_ops + 1) * sizeof *v);
  if (!v) return NULL;
  for (uint32_t i = 0; i < p->n_ops; i++)
    if (p->ops[i].prog == g) v[(*n)++] = i;
  return v;
}

static void fmt_signed(int64_t v, char *buf, size_t cap) {
  char t[32];
  hs_prof_fmt_time((uint64_t)(v < 0 ? -v : v), t, sizeof t);
  snprintf(buf, cap, "%s%s", v < 0 ? "-" : "+", t);
}

/* The diff's `time` and the sentence the verdict opens with. */
static json_t *time_json(const hs_diff_built *x, const hs_doc *a, const hs_doc *b, const hs_profile *pa, const hs_profile *pb,
                         char *said, size_t cap, bool *ok) {
  side_time S[2];
  memset(S, 0, sizeof S);
  S[0].d = a;
  S[1].d = b;
  *ok = pick_program(pa, &S[0]) && pick_program(pb, &S[1]);
  json_t *t = json_object();
  const hs_profile *P[2] = {pa, pb};
  const char *key_ps[2] = {"a_ps", "b_ps"}, *key_runs[2] = {"a_runs", "b_runs"}, *key_prog[2] = {"a_program", "b_program"};
  for (int s = 0; s < 2; s++) {
    const hs_prof_program *g = S[s].prog != HS_NONE ? &P[s]->progs[S[s].prog] : NULL;
    json_object_set_new(t, key_ps[s], g ? json_integer((json_int_t)g->per_run_ps) : json_null());
    json_object_set_new(t, key_runs[s], g ? json_integer((json_int_t)g->runs) : json_null());
  }
  for (int s = 0; s < 2; s++) json_object_set_new(t, key_prog[s], prog_json(P[s], S[s].prog));
  char unknown[1500] = "";
  for (int s = 0; s < 2; s++)
    if (S[s].prog == HS_NONE) put(unknown, sizeof unknown, "%s%s: %s", unknown[0] ? "; " : "", s ? "B" : "A", S[s].why);
  json_object_set_new(t, "unknown", unknown[0] ? json_string(unknown) : json_null());
  /* the ops */
  uint32_t na = 0, nb = 0;
  uint32_t *ra = S[0].prog != HS_NONE ? rows_of(pa, S[0].prog, &na) : NULL, *rb = S[1].prog != HS_NONE ? rows_of(pb, S[1].prog, &nb) : NULL;
  uint8_t *used_b = calloc((size_t)nb + 1, 1);
  op_row *rows = malloc(((size_t)na + nb + 1) * sizeof *rows);
  uint32_t n = 0;
  if ((S[0].prog != HS_NONE && !ra) || (S[1].prog != HS_NONE && !rb) || !used_b || !rows) *ok = false;
  for (uint32_t k = 0; *ok && k < na; k++) {
    const hs_prof_op *op = &pa->ops[ra[k]];
    int32_t ia = find_instr(&S[0], pa->strs[op->name].s), ib = ia >= 0 ? x->a_to_b[ia] : -1;
    int64_t bps = -1;
    if (ib >= 0 && rb) {
      /* B's row of the partner's name */
      size_t bl = b->instrs[ib].name.len;
      for (uint32_t j = 0; j < nb; j++) {
        const hs_prof_op *o = &pb->ops[rb[j]];
        if (!used_b[j] && pb->strs[o->name].len == bl && memcmp(pb->strs[o->name].s, hs_sp(b, b->instrs[ib].name), bl) == 0) {
          used_b[j] = 1;
          bps = (int64_t)hs_prof_op_per_run(o);
          break;
        }
      }
    }
    json_t *e = json_object();
    json_object_set_new(e, "a", hs_prof_json_str(pa, op->name));
    json_object_set_new(e, "b", instr_name(b, ib));
    json_object_set_new(e, "a_ps", json_integer((json_int_t)hs_prof_op_per_run(op)));
    json_object_set_new(e, "b_ps", ps_or_null(bps));
    json_object_set_new(e, "a_line", instr_line(a, ia));
    json_object_set_new(e, "b_line", instr_line(b, ib));
    rows[n++] = (op_row){e, (int64_t)hs_prof_op_per_run(op), bps, pa->strs[op->name].s, 0};
  }
  for (uint32_t j = 0; *ok && j < nb; j++) {
    if (used_b[j]) continue;
    const hs_prof_op *op = &pb->ops[rb[j]];
    int32_t ib = find_instr(&S[1], pb->strs[op->name].s), ia = ib >= 0 ? x->b_to_a[ib] : -1;
    /* A's side of it only when A's profile is known (else every a would be a guess) */
    if (S[0].prog == HS_NONE) ia = -1;
    json_t *e = json_object();
    json_object_set_new(e, "a", instr_name(a, ia));
    json_object_set_new(e, "b", hs_prof_json_str(pb, op->name));
    json_object_set_new(e, "a_ps", json_null());
    json_object_set_new(e, "b_ps", json_integer((json_int_t)hs_prof_op_per_run(op)));
    json_object_set_new(e, "a_line", instr_line(a, ia));
    json_object_set_new(e, "b_line", instr_line(b, ib));
    rows[n++] = (op_row){e, -1, (int64_t)hs_prof_op_per_run(op), pb->strs[op->name].s, 0};
  }
  int64_t ta = json_is_integer(json_object_get(t, "a_ps")) ? json_integer_value(json_object_get(t, "a_ps")) : -1;
  int64_t tb = json_is_integer(json_object_get(t, "b_ps")) ? json_integer_value(json_object_get(t, "b_ps")) : -1;
  uint64_t noise = (uint64_t)((double)(ta > tb ? ta : tb) * OP_NOISE_PCT / 100.0);
  for (uint32_t k = 0; k < n; k++) rows[k].key = key_of(&rows[k], noise);
  if (*ok && n > 1) qsort(rows, n, sizeof *rows, op_cmp);
  json_t *ops = json_array();
  for (uint32_t k = 0; k < n; k++) json_array_append_new(ops, rows[k].e);
  json_object_set_new(t, "ops", ops);
  /* the totals differ beyond the noise: null when a side is unknown */
  bool differs = ta > 0 && tb >= 0 && 100.0 * (double)(tb > ta ? tb - ta : ta - tb) / (double)ta > TIME_NOISE_PCT;
  json_object_set_new(t, "differs", ta < 0 || tb < 0 ? json_null() : json_boolean(differs));
  json_object_set_new(t, "noise", json_pack("{s:f,s:f}", "total_pct", TIME_NOISE_PCT, "op_pct", OP_NOISE_PCT));
  /* the sentence */
  said[0] = 0;
  if (unknown[0]) {
    for (int s = 0; s < 2; s++)
      if (S[s].prog == HS_NONE) put(said, cap, "The time per run of %s is unknown: %s. ", s ? "B" : "A", S[s].why);
  } else if (differs) {
    char fa[32], fb[32];
    hs_prof_fmt_time((uint64_t)ta, fa, sizeof fa);
    hs_prof_fmt_time((uint64_t)tb, fb, sizeof fb);
    double pct = 100.0 * (double)(tb - ta) / (double)ta;
    put(said, cap, "B is %.0f%% %s per run: %s against %s", pct < 0 ? -pct : pct, tb > ta ? "slower" : "faster", fb, fa);
    /* the ops whose change goes the way of the total's, largest first */
    uint32_t listed = 0;
    for (uint32_t k = 0; k < n && listed < 2; k++) {
      int64_t c = change_of(&rows[k]);
      if (!rows[k].key || (c > 0) != (tb > ta)) continue;
      char d[40];
      const char *an = json_string_value(json_object_get(rows[k].e, "a")), *bn = json_string_value(json_object_get(rows[k].e, "b"));
      fmt_signed(c, d, sizeof d);
      put(said, cap, "%s%.100s, %s", listed ? "; " : "; most of it in ", bn ? bn : an ? an : "?", d);
      if (an && bn && strcmp(an, bn) != 0) put(said, cap, " (A's %.100s)", an);
      listed++;
    }
    put(said, cap, ". ");
  }
  free(ra);
  free(rb);
  free(used_b);
  free(rows);
  free(S[0].by_name);
  free(S[1].by_name);
  return t;
}

char *hs_diff_json_ex(const hs_doc *a, const hs_doc *b, const hs_diff_extra *extra, size_t *len) {
  hs_diff_built x;
  if (!hs_diff_build(a, b, extra, &x)) return NULL;
  if (extra && extra->profile_a && extra->profile_b) {
    char said[2048];
    bool ok = true;
    json_t *t = time_json(&x, a, b, extra->profile_a, extra->profile_b, said, sizeof said, &ok);
    if (!ok) {
      json_decref(t);
      hs_diff_built_free(&x);
      return NULL;
    }
    json_object_set_new(x.result, "time", t);
    if (said[0]) {
      /* the time sentence first */
      const char *v = json_string_value(json_object_get(x.result, "verdict"));
      size_t n = strlen(said) + (v ? strlen(v) : 0) + 1;
      char *w = malloc(n);
      if (!w) {
        hs_diff_built_free(&x);
        return NULL;
      }
      snprintf(w, n, "%s%s", said, v ? v : "");
      size_t wl = strlen(w);
      while (wl && w[wl - 1] == ' ') w[--wl] = 0;
      json_object_set_new(x.result, "verdict", json_string(w));
      free(w);
    }
  }
  json_t *o = x.result;
  x.result = NULL;
  hs_diff_built_free(&x);
  return hs_json_finish(o, len);
}
