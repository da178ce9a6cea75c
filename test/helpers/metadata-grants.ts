/**
 * The routines (per schema), users, roles and privileges of a .siard's header/metadata.xml, read by
 * Python's zipfile and xml.etree (not by the project's reader), as element trees: each element is
 * its local name, its text when it has no child elements (SIARD escapes `\uXXXX` undone, as the
 * SIARD 2.2 text G_3.3-4 defines them, so `&#xD;` and `\u000D` are the same character) and its
 * children in order. Two archives carry the same objects when these trees are deeply equal.
 */
import { execFileSync } from 'node:child_process';

export type ElementTree = [name: string, text: string | null, children: ElementTree[]];

export interface MetadataGrants {
  /** `<routines>` of each schema, by schema name (schemas without routines are absent) */
  routines: Record<string, ElementTree[]>;
  users: ElementTree[];
  roles: ElementTree[];
  privileges: ElementTree[];
}

/**
 * Python source defining grants(metadata bytes) -> the MetadataGrants of that metadata.xml (also
 * used by reseg-archive.ts, which reads two packages in one python3 process).
 */
export const GRANTS_PY = String.raw`
import json, re, sys, zipfile
import xml.etree.ElementTree as ET
local = lambda el: el.tag.split('}')[-1]
unescape = lambda s: re.sub(r'\\u([0-9A-Fa-f]{4})', lambda m: chr(int(m.group(1), 16)), s)
def tree(el):
    kids = list(el)
    return [local(el), None if kids else unescape(el.text or ''), [tree(k) for k in kids]]
def child(el, name):
    return next((k for k in el if local(k) == name), None)
def items(el, name):
    return [tree(k) for k in (el if el is not None else []) if local(k) == name]
def grants(metadata):
    root = ET.fromstring(metadata)
    out = {'routines': {}, 'users': items(child(root, 'users'), 'user'), 'roles': items(child(root, 'roles'), 'role'),
           'privileges': items(child(root, 'privileges'), 'privilege')}
    for s in child(root, 'schemas') or []:
        routines = items(child(s, 'routines'), 'routine')
        if routines:
            out['routines'][unescape(child(s, 'name').text or '')] = routines
    return out
`;

const SCRIPT = `${GRANTS_PY}
print(json.dumps(grants(zipfile.ZipFile(sys.argv[1]).read('header/metadata.xml'))))
`;

export function metadataGrantsOf(siard: string): MetadataGrants {
  return JSON.parse(execFileSync('python3', ['-c', SCRIPT, siard], { encoding: 'utf8', maxBuffer: 1 << 28 })) as MetadataGrants;
}
