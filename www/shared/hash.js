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
