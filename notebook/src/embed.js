// dist/hloscope-drills.js: one classic script for course pages. It registers
//   <xla-drill skill="fusioncount|xray|...">   every drill kind (notebook/src/drills/kinds/), whatchanged (GYM·14) too
//   <xla-xray>                                 the notebook's fusion x-ray view
//   <xla-pipeline>                             a dump folder's pass stepper (GYM·12's folder view)
//   <xla-timeline>                             a profile's timeline (data = { timeline })
//   <xla-levels>                               one fusion at three levels (HLO, no-opt LLVM, optimized LLVM)
//   <xla-path-progress>                        "the xla path · N/M", ticking itself
//   <xla-memory>                               an XLA out-of-memory message or memory report in numbers
//   <xla-padding>                              a module's padding table (layouts in words)
//   <xla-diff>                                 what changed between two compiles (src-a, src-b), side by side
// and exposes `window.hloscope.drills` (streaks: get, export, import; registerKind).
// Everything (the wasm core, the captures) is inside the script: no request leaves the page.
import { defineDrill, XlaDrill } from './drills/xla-drill.js';
import { definePathProgress, XlaPathProgress } from './drills/path-progress.js';
import { registerKind } from './drills/registry.js';
import * as streaks from './streaks.js';
import './views/xla-xray.js';
import './views/xla-pipeline.js';
import './views/xla-memory.js';
import './views/xla-padding.js';
import './views/xla-timeline.js';
import './views/xla-levels.js';
import './views/xla-diff.js';

defineDrill();
definePathProgress();

const ns = (globalThis.hloscope ||= {});
ns.drills = {
  XlaDrill,
  XlaPathProgress,
  registerKind,
  streaks: {
    keyPrefix: streaks.KEY_PREFIX,
    get: streaks.getStreak,
    skills: streaks.skills,
    exportProgress: streaks.exportProgress,
    importProgress: streaks.importProgress,
    storageMode: streaks.storageMode,
    subscribe: streaks.subscribe,
  },
};
