// The one URL-hash codec of the page: parameters in `location.hash` as `key=value&...` (URLSearchParams),
// rewritten in place without history entries. Every module reads and writes the hash through these.

/** The hash's parameters. */
export const hashParams = () => new URLSearchParams(location.hash.replace(/^#/, ''));

/** Rewrites the hash in place (no history entry): `edit(params)` changes the parameters. */
export function editHash(edit) {
  const p = hashParams();
  edit(p);
  const h = '#' + p.toString();
  if (h !== location.hash) history.replaceState(null, '', h);
}
