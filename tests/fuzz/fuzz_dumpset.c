/* libFuzzer target for dump folders: any bytes as a pasted listing, and as (name, bytes) pairs
 * (the first byte picks where the name ends), then the JSON of the set, and a compare of the two.
 * Built and run by tests/fuzz/run.sh beside fuzz_parse.
 *
 * -DHS_FUZZ_LEAN (the long run, `run.sh --long dumpset`): one set holding all three (the listing,
 * the pair, the pass step), its JSON once, no compare: the JSON library's allocations under ASan
 * were most of the full harness's time. */
#include <stddef.h>
#include <stdint.h>

#include "hloscope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const char *text = (const char *)data + 1;
  size_t len = size - 1;
  size_t split = (size_t)data[0] * len / 255;
#ifdef HS_FUZZ_LEAN
  hs_dumpset *a = hs_dumpset_new(), *b = NULL;
  if (!a) goto done;
  hs_dumpset_add_listing(a, text, len);
  hs_dumpset_add(a, text, split, text + split, len - split);
  hs_dumpset_add(a, "module_0001.jit_f.0000.p.after_pipeline-start.before_x.txt", 58, text, len);
  hs_free(hs_dumpset_json(a, NULL, NULL));
  goto done;
#else
  hs_dumpset *a = hs_dumpset_new(), *b = hs_dumpset_new();
  if (!a || !b) goto done;
  hs_dumpset_add_listing(a, text, len);
  hs_dumpset_add(b, text, split, text + split, len - split);
  hs_dumpset_add(b, "module_0001.jit_f.0000.p.after_pipeline-start.before_x.txt", 58, text, len);
  hs_error err;
  hs_free(hs_dumpset_json(a, &err, NULL));
  hs_free(hs_dumpset_json(b, &err, NULL));
  hs_free(hs_dumpset_compare_json(a, b, &err, NULL));
#endif
done:
  hs_dumpset_free(a);
  hs_dumpset_free(b);
  return 0;
}
