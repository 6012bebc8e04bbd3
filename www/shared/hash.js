// The one URL-hash codec of the page: parameters in `location.hash` as `key=value&...` (URLSearchParams),
// rewritten in place without history entries, and typed fields read and written under an optional
// namespace ("bandit.rounds=..."). Every module reads and writes the hash through these.

/**
 * A typed setting: `select` (one of options), `checks` (a subset), `bool`, `int` / `num` (within min..max),
 * `list` (positive numbers separated by commas), `text`.
 * @typedef {object} Field
 * @property {string} key
 * @property {string} type  select | checks | bool | int | num | list | text
 * @property {string[][]} [options]  [value, label]
 * @property {number} [min]
 * @property {number} [max]
 */

/** The parameters of a hash string ("#a=1&b=2"). @param {string} hash */
export const paramsOf = (hash) => new URLSearchParams(String(hash).replace(/^#/, ''));

/** The page hash's parameters. */
export const hashParams = () => paramsOf(location.hash);

/** Sets the page hash in place (no history entry, no hashchange event). @param {string} hash */
export function setHash(hash) {
  if (hash !== location.hash) history.replaceState(null, '', hash);
}

/**
 * Rewrites the hash in place: `edit(params)` changes the parameters.
 * @param {(p: URLSearchParams) => void} edit
 */
export function editHash(edit) {
  const p = hashParams();
  edit(p);
  setHash('#' + p.toString());
}

/**
 * "1, 0.1,0.01" -> [1, 0.1, 0.01]; null when empty or not all positive finite numbers.
 * @param {unknown} s
 * @returns {number[]|null}
 */
export function parseNumberList(s) {
  const xs = parseNumbers(s);
  return xs && xs.every((x) => x > 0) ? xs : null;
}

/**
 * "1, -0.5;2" -> [1, -0.5, 2]; null when empty or not all finite numbers (the panels' number-list fields).
 * @param {unknown} s
 * @returns {number[]|null}
 */
export function parseNumbers(s) {
  const xs = String(s).split(/[\s,;]+/).filter(Boolean).map(Number);
  return xs.length && xs.every(Number.isFinite) ? xs : null;
}

/**
 * Parses one field's raw string; undefined when invalid.
 * @param {Field} f
 * @param {string} raw
 * @returns {any}
 */
export function parseField(f, raw) {
  const opts = f.options ?? [];
  const inRange = (/** @type {number} */ v) => v >= (f.min ?? -Infinity) && v <= (f.max ?? Infinity);
  switch (f.type) {
    case 'select': return opts.some(([v]) => v === raw) ? raw : undefined;
    case 'bool': return raw === '1' || raw === 'true' ? true : raw === '0' || raw === 'false' ? false : undefined;
    case 'checks': {
      if (raw === '') return [];
      const xs = raw.split(',');
      return xs.every((x) => opts.some(([v]) => v === x)) ? xs : undefined;
    }
    case 'int': { const v = Number(raw); return raw !== '' && Number.isInteger(v) && inRange(v) ? v : undefined; }
    case 'num': { const v = Number(raw); return raw !== '' && Number.isFinite(v) && inRange(v) ? v : undefined; }
    case 'list': return parseNumberList(raw) ? raw.trim() : undefined;
    default: return raw;
  }
}

/**
 * A field's value as its hash string.
 * @param {Field} f
 * @param {any} v
 */
export const formatField = (f, v) => (f.type === 'bool' ? (v ? '1' : '0') : f.type === 'checks' ? v.join(',') : String(v));

/**
 * Reads `fields` from hash parameters (keys `${prefix}${key}`) over `defaults`; invalid values keep the default.
 * @param {URLSearchParams} params
 * @param {Field[]} fields
 * @param {Record<string, any>} defaults
 * @param {string} [prefix]
 */
export function readFields(params, fields, defaults, prefix = '') {
  const values = { ...defaults };
  /** @type {string[]} */
  const invalid = [];
  for (const f of fields) {
    const raw = params.get(prefix + f.key);
    if (raw == null) continue;
    const v = parseField(f, raw);
    if (v === undefined) invalid.push(f.key); else values[f.key] = v;
  }
  return { values, invalid };
}

/**
 * Writes `values` of `fields` into hash parameters (keys `${prefix}${key}`), in the fields' order.
 * @param {URLSearchParams} params
 * @param {Field[]} fields
 * @param {Record<string, any>} values
 * @param {string} [prefix]
 */
export function writeFields(params, fields, values, prefix = '') {
  for (const f of fields) params.set(prefix + f.key, formatField(f, values[f.key]));
}

/**
 * Optimal-string-alignment distance (Damerau-Levenshtein with adjacent transpositions), as the core's strict
 * configs use (src/strict.rs, strsim).
 * @param {string} a @param {string} b
 */
export function editDistance(a, b) {
  /** @type {number[][]} */
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The known name nearest to `key` within a few edits (the core's rule: 1 edit for names of up to 3 letters,
 * else max(2, length / 3)); null when none is that close.
 * @param {string} key @param {Iterable<string>} known
 */
export function nearestKey(key, known) {
  const limit = key.length <= 3 ? 1 : Math.max(2, Math.floor(key.length / 3));
  let best = null;
  let bestD = Infinity;
  for (const k of known) {
    if (k === key) continue;
    const dist = editDistance(key, k);
    if (dist <= limit && dist < bestD) { best = k; bestD = dist; }
  }
  return best;
}

/**
 * The keys of hash parameters that are not `known` (a link from an older page, whose setting was removed or
 * renamed, or a typo), each with the nearest known key.
 * @param {URLSearchParams} params @param {Set<string>} known
 * @returns {{key: string, suggestion: string|null}[]}
 */
export function unknownKeys(params, known) {
  const out = [];
  for (const key of new Set(params.keys())) if (!known.has(key)) out.push({ key, suggestion: nearestKey(key, known) });
  return out;
}
