// npm run bench:browser: the browser figures that tests once bounded (issue 34, item 12), each
// printed beside its goal, met or not. Chromium, the served notebook and pages (built first when
// missing); a few minutes. The tests keep what these runs must show (counts and behaviour):
// tests/browser/paste-longtask.test.mjs, notebook-large.test.mjs and pipeline.test.mjs.
//   node bench/browser.mjs [--json]      (writes bench/out/browser.json)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../tests/browser/harness.mjs';
import { measurePaste, printPaste } from './paste_longtask.mjs';
import { measureLarge, printLarge } from './notebook_large.mjs';
import { measureFolder, printFolder } from './pipeline_folder.mjs';

const paste = await measurePaste(20);
printPaste(paste);
const large = await measureLarge();
printLarge(large);
const folder = await measureFolder();
printFolder(folder);
const out = join(repoRoot, 'bench/out');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'browser.json'), JSON.stringify({ paste, large, folder }, null, 1));
if (process.argv.includes('--json')) console.log(JSON.stringify({ paste, large, folder }));
