// A typed user of the JS API (wasm/hloscope.d.ts), checked by `tsc --noEmit -p tests/types` in
// tests/node/types.test.mjs. It is never run: it says what a notebook cell or a course page may
// write, and the `@ts-expect-error` lines say what the types must refuse (tsc fails when a line
// so marked is accepted).
import * as hs from '../../wasm/hloscope.mjs';
import type { DocumentFormat, ErrorCode, Format, ResultKind, WarningCode } from '../../wasm/hloscope.mjs';

export async function cell(text: string, bytes: Uint8Array): Promise<string[]> {
  await hs.load();
  const out: string[] = [hs.version()];
  const f: Format = hs.detectFormat(text);
  out.push(f);
  const doc = hs.parse(text);
  const df: DocumentFormat = doc.format;
  out.push(df, doc.summary().format);
  const kinds: ResultKind[] = ['summary', 'fusions', 'spills', 'computations', 'layouts', 'decisions', 'overlap'];
  for (const k of kinds) out.push(doc.json(k), doc.text(k, 'dump.txt'));
  out.push(hs.text('xray', hs.xrayJSON('', text), { name: '', nameB: 'dump.txt', left: '', right: text }));
  const census = doc.census();
  out.push(String(census.fusion_ops + doc.fusions().fusion_ops + (doc.fusions({ rows: 10 }).fusions_total ?? 0)));
  for (const w of doc.summary().warnings) {
    const code: WarningCode = w.code;
    out.push(`${code} ${w.line}:${w.column} ${w.message}`);
  }
  out.push(String(doc.decisions().decisions.filter((d) => d.kind === 'upcast').length));
  doc.free();
  try {
    hs.xray('', text);
  } catch (e) {
    if (e instanceof hs.HloscopeError) {
      const code: ErrorCode = e.code;
      out.push(`${code} at ${e.line}:${e.column}`, e.side ?? 'both');
    }
  }
  const prof = hs.parseProfile(bytes);
  out.push(JSON.stringify(prof.summary()));
  prof.free();
  const reg = hs.registry();
  out.push(...reg.commands.map((c) => `${c.name} ${c.inputs.map((i) => i.role).join(',')}`));
  out.push(hs.readMemory(text).kind, String(hs.layout('f32[8,128]{1,0}').padded_bytes));
  out.push(String(hs.readPasses(['module_0001.jit_f.after_optimizations.txt']).modules.length));
  // the parse-once forms: one document joined to several texts, its layouts without a second parse
  const hlo = hs.parse(text);
  out.push(String(hlo.layouts().padding_bytes));
  out.push(hs.readLlvm(text, hlo).module ?? '', hs.llvmJSON(text, hlo), hs.llvmJSON(text, text));
  out.push(hs.readMemory(text, hlo, 'x-buffer-assignment.txt').kind, hs.readMemoryJSON(text, hlo));
  hlo.free();
  return out;
}

export function refused(doc: hs.HloDocument): void {
  // @ts-expect-error: not a result kind of the core
  doc.json('fusion');
  // @ts-expect-error: a document's format is one parse() reads
  const f: DocumentFormat = 'llvm';
  // @ts-expect-error: not an error code of the registry
  const c: ErrorCode = 'HS_E_SYNTAX_ERROR';
  // @ts-expect-error: parse() takes text (parseBytes takes bytes)
  hs.parse(new Uint8Array(1));
  // @ts-expect-error: the HLO of a join is a text or a document, not a result
  hs.readLlvm('', doc.summary());
  void f; void c;
}
