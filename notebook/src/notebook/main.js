// The notebook page's entry (notebook/build.mjs bundles it as app.js). The page is page.js;
// cells are cell.js and dump-cell.js; the views a dump offers, by format, are readers.js.
import { startNotebook } from './page.js';

startNotebook();
