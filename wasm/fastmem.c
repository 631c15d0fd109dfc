/* memchr and memcmp for the WebAssembly build only, in place of Emscripten's musl ones.
 *
 * The HLO reader finds every line's end with memchr and compares names and opcodes with
 * memcmp. musl's memchr goes a word at a time and its memcmp a byte at a time; natively glibc
 * uses vector instructions. With these the wasm build reads the same text in about the time
 * natively (bench/, README's speed table): memchr looks at 64 bytes per step, then 16, with
 * wasm SIMD (Node 20, Chromium, Firefox and Safari 16.4+ run it), memcmp compares 8 bytes per
 * step.
 * Compiled with -fno-builtin so that the compiler does not turn these loops back into calls
 * to themselves. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

void *memchr(const void *src, int c, size_t n) {
  const unsigned char *s = src;
  unsigned char ch = (unsigned char)c;
#ifdef __wasm_simd128__
  v128_t needle = wasm_i8x16_splat((int8_t)ch);
  /* 64 bytes a step while there is no match (a line of HLO is 100-200 bytes), then 16 */
  while (n >= 64) {
    v128_t e0 = wasm_i8x16_eq(wasm_v128_load(s), needle), e1 = wasm_i8x16_eq(wasm_v128_load(s + 16), needle);
    v128_t e2 = wasm_i8x16_eq(wasm_v128_load(s + 32), needle), e3 = wasm_i8x16_eq(wasm_v128_load(s + 48), needle);
    if (wasm_v128_any_true(wasm_v128_or(wasm_v128_or(e0, e1), wasm_v128_or(e2, e3)))) break;
    s += 64, n -= 64;
  }
  while (n >= 16) {
    v128_t v = wasm_v128_load(s);
    uint32_t m = (uint32_t)wasm_i8x16_bitmask(wasm_i8x16_eq(v, needle));
    if (m) return (void *)(s + __builtin_ctz(m));
    s += 16, n -= 16;
  }
#else
  while (n >= 8) {
    uint64_t w;
    __builtin_memcpy(&w, s, 8);
    uint64_t x = w ^ (0x0101010101010101ull * ch);
    if ((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull) break;
    s += 8, n -= 8;
  }
#endif
  for (; n; s++, n--)
    if (*s == ch) return (void *)s;
  return NULL;
}

int memcmp(const void *va, const void *vb, size_t n) {
  const unsigned char *a = va, *b = vb;
  while (n >= 8) {
    uint64_t x, y;
    __builtin_memcpy(&x, a, 8);
    __builtin_memcpy(&y, b, 8);
    if (x != y) break; /* the byte loop below finds which byte differs */
    a += 8, b += 8, n -= 8;
  }
  for (; n; a++, b++, n--)
    if (*a != *b) return *a - *b;
  return 0;
}
