// Minimal readers for the archives a dump folder travels in: .tar.gz / .tgz, .tar, .zip.
//
// Why not a library: inflating is the platform's (DecompressionStream 'gzip' and 'deflate-raw',
// in Chromium 103+, Firefox 113+, Safari 16.4+, Node 20), so what remains is walking the tar
// headers and the zip central directory: a few dozen lines each. fflate (the best small
// candidate) would add its own inflate and still no tar reader; the page stays offline and
// dependency-free. Archives stay out of the C core, which reads names and bytes only.
//
//   const entries = await readArchive(bytes);   // [{ name, data: Uint8Array }], folders left out
//
// Errors are HloscopeError-shaped objects passed in by the caller's module (code HS_E_FORMAT,
// a message that says what is wrong and at which byte).

const td = new TextDecoder('utf-8');

async function inflate(bytes, format) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(format));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function cstr(u8, off, len) {
  let end = off;
  while (end < off + len && u8[end] !== 0) end++;
  return td.decode(u8.subarray(off, end));
}

function octal(u8, off, len) {
  let v = 0;
  let i = off;
  while (i < off + len && (u8[i] === 0x20 || u8[i] === 0)) i++;
  for (; i < off + len && u8[i] >= 0x30 && u8[i] <= 0x37; i++) v = v * 8 + (u8[i] - 0x30);
  return v;
}

/** The entries of a tar stream (ustar, GNU long names, pax paths). */
export function readTar(u8, fail) {
  const out = [];
  let p = 0;
  let longName = null;
  while (p + 512 <= u8.length) {
    let zero = true;
    for (let i = p; i < p + 512 && zero; i++) zero = u8[i] === 0;
    if (zero) break;
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : u8[p + i];
    if (sum !== octal(u8, p + 148, 8)) throw fail(`corrupt tar archive: bad header checksum at byte ${p}`);
    const size = octal(u8, p + 124, 12);
    const type = String.fromCharCode(u8[p + 156]);
    const data = p + 512;
    if (size > u8.length - data) throw fail(`truncated tar archive: the entry at byte ${p} runs past the end`);
    let name = cstr(u8, p, 100);
    if (longName !== null) {
      name = longName;
      longName = null;
    } else if (cstr(u8, p + 257, 5) === 'ustar' && u8[p + 262] === 0 && u8[p + 345]) { // POSIX ustar prefix (not GNU's)
      name = `${cstr(u8, p + 345, 155)}/${name}`;
    }
    if (type === 'L') {
      longName = cstr(u8, data, size);
    } else if (type === 'x') {
      const text = td.decode(u8.subarray(data, data + size));
      const m = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(text);
      if (m) longName = m[1];
    } else if (type === '0' || type === '\0' || type === '7') {
      out.push({ name, data: u8.subarray(data, data + size) });
    }
    p = data + Math.ceil(size / 512) * 512;
  }
  return out;
}

const rd16 = (u8, p) => u8[p] | (u8[p + 1] << 8);
const rd32 = (u8, p) => (u8[p] | (u8[p + 1] << 8) | (u8[p + 2] << 16) | (u8[p + 3] << 24)) >>> 0;

/** The entries of a zip (stored and deflated; no zip64). `want(name)` says whose bytes to inflate. */
export async function readZip(u8, fail, want = () => true) {
  if (u8.length < 22) throw fail('corrupt zip archive: too short for an end-of-directory record');
  let e = u8.length - 22;
  const stop = Math.max(0, u8.length - 22 - 65535);
  while (rd32(u8, e) !== 0x06054b50) {
    if (e === stop) throw fail('corrupt zip archive: no end-of-central-directory record');
    e--;
  }
  const count = rd16(u8, e + 10);
  const cdOff = rd32(u8, e + 16);
  if (count === 0xffff || cdOff === 0xffffffff) throw fail('zip64 archives are not read; use .tar.gz');
  if (cdOff > u8.length) throw fail('corrupt zip archive: the central directory lies past the end');
  const out = [];
  let p = cdOff;
  for (let i = 0; i < count; i++) {
    if (p + 46 > u8.length || rd32(u8, p) !== 0x02014b50) throw fail(`corrupt zip archive: a bad central-directory entry at byte ${p}`);
    const method = rd16(u8, p + 10);
    const csize = rd32(u8, p + 20);
    const lho = rd32(u8, p + 42);
    const nl = rd16(u8, p + 28);
    const name = td.decode(u8.subarray(p + 46, p + 46 + nl));
    p += 46 + nl + rd16(u8, p + 30) + rd16(u8, p + 32);
    if (name.endsWith('/')) continue;
    if (!want(name)) {
      out.push({ name, data: null });
      continue;
    }
    if (lho + 30 > u8.length || rd32(u8, lho) !== 0x04034b50) throw fail(`corrupt zip archive: a bad local header for ${name}`);
    const d = lho + 30 + rd16(u8, lho + 26) + rd16(u8, lho + 28);
    if (d + csize > u8.length) throw fail(`corrupt zip archive: ${name} runs past the end`);
    const raw = u8.subarray(d, d + csize);
    if (method === 0) out.push({ name, data: raw });
    else if (method === 8) {
      try {
        out.push({ name, data: await inflate(raw, 'deflate-raw') });
      } catch {
        throw fail(`corrupt zip archive: ${name} does not inflate`);
      }
    } else out.push({ name, data: null });
  }
  return out;
}

/** Reads a .tar.gz/.tgz, .tar or .zip from its bytes (detected by content, not by name). */
export async function readArchiveWith(bytes, fail, want) {
  let u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (u8.length >= 2 && u8[0] === 0x1f && u8[1] === 0x8b) {
    try {
      u8 = await inflate(u8, 'gzip');
    } catch {
      throw fail('corrupt gzip stream (expected a .tar.gz of a dump folder)');
    }
    return readTar(u8, fail);
  }
  if (u8.length >= 4 && rd32(u8, 0) === 0x04034b50) return readZip(u8, fail, want);
  if (u8.length >= 512 && cstr(u8, 257, 5) === 'ustar') return readTar(u8, fail);
  throw fail('not a readable archive (neither gzip, zip nor tar bytes)');
}
