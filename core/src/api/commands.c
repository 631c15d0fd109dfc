/* The command table: every command the hosts offer, its inputs and their roles, the result it
 * prints, and its usage and help as the CLI prints them. The CLI dispatches and prints its usage
 * from it, and hs_registry_json hands it to JS and Python. A new command is one row here, its
 * analysis, and (in the CLI) its handler. */
#include "api/api.h"

#define DOC "hlo,stablehlo,jaxpr"
#define PROFILE "xplane,trace_json"
#define IN(name, accepts, role) {name, NULL, accepts, role, 0, 0, 0}
#define OPT(name, flag, accepts, role) {name, flag, accepts, role, 1, 0, 0}
#define INPUTS(...) (const hs_command_input[]){__VA_ARGS__}, sizeof((const hs_command_input[]){__VA_ARGS__}) / sizeof(hs_command_input)
#define NO_INPUTS NULL, 0

static const hs_command COMMANDS[] = {
    {"summary", NULL, "summary", "summary FILE", "format, module, lines, computations, instructions, warnings",
     INPUTS(IN("FILE", DOC, "input"))},
    {"fusions", NULL, "fusions", "fusions FILE", "the fusion census: fused computations, fusion ops, what each holds",
     INPUTS(IN("FILE", DOC, "input"))},
    {"spills", NULL, "spills", "spills FILE", "the big intermediate, the lines that carry it, HBM traffic",
     INPUTS(IN("FILE", DOC, "input"))},
    {"computations", NULL, "computations", "computations FILE", "every computation with its instructions and result types",
     INPUTS(IN("FILE", DOC, "input"))},
    {"xray", NULL, "xray", "xray LEFT RIGHT", "StableHLO (LEFT) beside optimized HLO (RIGHT), line by line",
     INPUTS({"LEFT", NULL, DOC, "left", 0, 0, 1}, IN("RIGHT", "hlo", "right"))},
    {"profile", NULL, "profile", "profile PROFILE...",
     "per-op device time from a jax.profiler trace: .xplane.pb or\n.trace.json (a .gz file is decompressed first); "
     "several files\n(one per process of a job) or a log folder are read as one",
     INPUTS({"PROFILE", NULL, PROFILE, "input", 0, 1, 0})},
    {"passes", NULL, "passes", "passes PATH...",
     "a dump folder (--xla_dump_to), its .tar.gz/.zip, or an `ls` listing:\nmodules, pass steps, pipelines, the layout "
     "watershed, per-step counts",
     INPUTS({"PATH", NULL, "dump", "input", 0, 1, 0})},
    {"passes", "--compare", "passes_compare", "passes --compare A B", "the passes only in A, only in B, and in both, per pipeline",
     INPUTS(IN("A", "dump", "a"), IN("B", "dump", "b"))},
    {"layout", NULL, "layout", "layout 'TYPE'", "one type's layout in words, with its padding (quote the type)",
     INPUTS(IN("TYPE", "type", "input"))},
    {"layouts", NULL, "layouts", "layouts FILE", "a module's padding table: each value's tiled against logical size",
     INPUTS(IN("FILE", DOC, "input"))},
    {"memory", NULL, "memory", "memory FILE [HLO]",
     "an XLA out-of-memory message, a *-buffer-assignment.txt or a\n*-memory-usage-report.txt read into numbers, joined to "
     "the\noptimized HLO (HLO, or the dump's own beside FILE)",
     INPUTS(IN("FILE", "memory", "input"), {"HLO", NULL, "hlo", "hlo", 1, 0, 0})},
    {"timeline", NULL, "timeline", "timeline PROFILE... [--hlo DUMP] [--stablehlo DUMP] [--program NAME|ID]",
     "per program: runs and envelope, per device and per host; per op:\ntime per run, share, kind, who wrote it, its "
     "kernels, its HLO;\nasync copies: hidden or exposed; PROFILE: files or a log folder",
     INPUTS({"PROFILE", NULL, PROFILE, "input", 0, 1, 0}, OPT("DUMP", "--hlo", "hlo", "hlo"),
            OPT("DUMP", "--stablehlo", "stablehlo", "stablehlo"), OPT("NAME|ID", "--program", "text", "program"))},
    {"decisions", NULL, "decisions", "decisions FILE",
     "upcasts, downcasts, broadcasts, remat marks, transposes and\nlayout copies in a jaxpr, StableHLO or HLO, by line",
     INPUTS(IN("FILE", DOC, "input"))},
    {"overlap", NULL, "overlap", "overlap FILE",
     "async transfers (all-gather, all-reduce, copy, send/recv, async-start\n...): each start with its done, its bytes, "
     "and the kernels scheduled\nwhile it is in flight (null when the module is not scheduled)",
     INPUTS(IN("FILE", "hlo", "input"))},
    {"llvm", NULL, "llvm", "llvm FILE [--hlo DUMP]",
     "an XLA LLVM IR file (.ll): kernels, parameters, loops with trip\ncounts, loads/stores, vector widths, ops, calls; with "
     "--hlo (the\nafter_optimizations HLO, or the dump folder holding it) each kernel\nis joined to its fusion and what the "
     "lowering dropped is listed",
     INPUTS(IN("FILE", "llvm", "input"), OPT("DUMP", "--hlo", "hlo,dump", "hlo"))},
    {"diff", NULL, "diff", "diff [--fail-on LIST] [--profiles PA PB] [--environment EA EB] A B",
     "what changed between two compiles (optimized HLO files or dump\nfolders, modules paired by name), by meaning: instructions matched\nby what they are, fusions same, added,\n"
     "removed, merged, split or changed, values newly in HBM, calls,\nmodule config, a verdict; with --profiles (a profile of each side's\n"
     "runs: files or log folders) the time per run and per op; with\n--environment (a JSON object per side: jax versions, cost_analysis())\nthose facts compared;\n--fail-on new-spill,fusion-count,traffic+P%,time+P% exits 3 when\none holds (for CI)",
     INPUTS(IN("A", "hlo,dump", "a"), IN("B", "hlo,dump", "b"), OPT("LIST", "--fail-on", "text", "fail_on"),
            OPT("PA", "--profiles", PROFILE, "profile_a"), OPT("PB", "--profiles", PROFILE, "profile_b"),
            OPT("EA", "--environment", "json", "environment_a"), OPT("EB", "--environment", "json", "environment_b"))},
    {"report", NULL, "report", "report --out FILE.html [--markdown FILE.md] [--zip] [--redact] INPUT...",
     "one HTML file to attach to a bug: any mix of HLO, StableHLO,\njaxpr, dump folders or archives, profiles or log folders, memory\n"
     "messages and LLVM IR, carried compressed with the core and the\nviews; opens offline on an overview (what was given, provenance,\n"
     "each analysis's headline), two compiles of one program on their\ndiff; --markdown writes the overview for an issue's body, --zip\n"
     "the page in a .zip, --redact replaces module names, source paths\nand op_name prefixes; --title TEXT, --only WORD, --json",
     INPUTS({"INPUT", NULL, DOC ",memory,llvm," PROFILE ",dump", "input", 0, 1, 0}, OPT("FILE.html", "--out", "text", "out"),
            OPT("FILE.md", "--markdown", "text", "markdown"), OPT("TEXT", "--title", "text", "title"),
            OPT("WORD", "--only", "text", "only"))},
    {"version", NULL, NULL, "version", "print the version", NO_INPUTS},
    {"registry", NULL, "registry", "registry", "the formats, result kinds and codes the core knows (JSON)", NO_INPUTS},
};
#define N_COMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

size_t hs_command_count(void) { return N_COMMANDS; }

const hs_command *hs_command_at(size_t i) { return i < N_COMMANDS ? &COMMANDS[i] : NULL; }

const hs_command *hs_command_find(const char *name, const char *mode) {
  if (!name) return NULL;
  for (size_t i = 0; i < N_COMMANDS; i++) {
    const hs_command *c = &COMMANDS[i];
    if (strcmp(c->name, name) != 0) continue;
    if (mode ? c->mode && strcmp(c->mode, mode) == 0 : !c->mode) return c;
  }
  return NULL;
}

json_t *hs_commands_json(void) {
  json_t *a = json_array();
  for (size_t i = 0; i < N_COMMANDS; i++) {
    const hs_command *c = &COMMANDS[i];
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(c->name));
    json_object_set_new(o, "mode", c->mode ? json_string(c->mode) : json_null());
    json_object_set_new(o, "kind", c->kind ? json_string(c->kind) : json_null());
    json_object_set_new(o, "text", json_boolean(c->kind && hs_text_has(c->kind))); /* hs_text renders its result */
    json_object_set_new(o, "usage", json_string(c->usage));
    json_object_set_new(o, "help", json_string(c->help));
    json_t *ins = json_array();
    for (size_t k = 0; k < c->n_inputs; k++) {
      const hs_command_input *in = &c->inputs[k];
      json_t *x = json_object();
      json_object_set_new(x, "name", json_string(in->name));
      json_object_set_new(x, "flag", in->flag ? json_string(in->flag) : json_null());
      json_object_set_new(x, "accepts", json_string(in->accepts));
      json_object_set_new(x, "role", json_string(in->role));
      json_object_set_new(x, "optional", json_boolean(in->optional));
      json_object_set_new(x, "repeated", json_boolean(in->repeated));
      json_object_set_new(x, "blank_ok", json_boolean(in->blank_ok));
      json_array_append_new(ins, x);
    }
    json_object_set_new(o, "inputs", ins);
    json_array_append_new(a, o);
  }
  return a;
}
