// The notebook a first visit opens: our own capture of naive attention (jax 0.4.38, CPU), its
// StableHLO and the optimized HLO XLA decided, already showing the x-ray, plus how to paste
// your own dump. The texts come from fixtures/ at build time (hs:example); when the capture
// is not there yet the example holds the instructions and two empty dump cells.
import { hlo, stablehlo } from 'hs:example';

export const exampleAvailable = typeof stablehlo === 'string' && typeof hlo === 'string';

const intro = `# Read what XLA did with your program

This notebook runs in your browser and sends nothing anywhere: the parser is WebAssembly on this page.

Below is **naive attention** (\`softmax(q·kᵀ)·v\`), captured with jax 0.4.38 on CPU: the StableHLO that XLA received, the optimized HLO it decided, and the **x-ray** of the pair. Copper lines are fusions (one kernel each), underlined lines carry the big intermediate, dimmed lines are bookkeeping; hover any line for what it does.

## Your own dump

In Python (Colab works):

\`\`\`python
lowered = jax.jit(f).lower(x)
print(lowered.as_text())            # StableHLO: paste into a dump cell
print(lowered.compile().as_text())  # optimized HLO: paste into another
\`\`\`

Then add a **dump** cell (paste, upload or drop the text, and give it a name), and a **code** cell: every dump is in scope by its name, with the API (\`parse\`, \`xray\`, …) and \`show(x)\`. Shift+Enter runs a cell.`;

const empty = `The example capture (fixtures/cpu-jax-0.4.38/naive_attention) is not in this build: paste a StableHLO dump into \`stablehlo\` and an optimized HLO dump into \`hlo\`, then run the code cell.`;

/** The example notebook's cells ({ kind, name, text }), and which code cells to run at once. */
export function exampleNotebook() {
  return {
    title: 'naive attention, x-rayed',
    cells: [
      { kind: 'markdown', text: exampleAvailable ? intro : `${intro}\n\n${empty}` },
      { kind: 'dump', name: 'stablehlo', text: exampleAvailable ? stablehlo : '' },
      { kind: 'dump', name: 'hlo', text: exampleAvailable ? hlo : '' },
      { kind: 'code', text: '// the fusion x-ray: StableHLO in, optimized HLO out\nshow.xray(stablehlo, hlo)' },
      { kind: 'code', text: '// every fusion XLA made, and what each one holds\nshow.fusions(hlo)\nshow.summary(hlo)' },
    ],
  };
}
