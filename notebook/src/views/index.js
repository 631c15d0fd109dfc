// All view components at once: <xla-xray>, <xla-fusion-table>, <xla-summary>.
export { XlaXray } from './xla-xray.js';
export { XlaFusionTable } from './xla-fusion-table.js';
export { XlaSummary } from './xla-summary.js';
export { XlaLevels } from './xla-levels.js';
