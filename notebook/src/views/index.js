// All view components at once: <xla-xray>, <xla-fusion-table>, <xla-summary>, <xla-memory>, <xla-padding>, <xla-levels>, <xla-diff>.
export { XlaXray } from './xla-xray.js';
export { XlaFusionTable } from './xla-fusion-table.js';
export { XlaSummary } from './xla-summary.js';
export { XlaPipeline } from './xla-pipeline.js';
export { XlaMemory } from './xla-memory.js';
export { XlaPadding } from './xla-padding.js';
export { XlaLevels } from './xla-levels.js';
export { XlaDiff } from './xla-diff.js';
