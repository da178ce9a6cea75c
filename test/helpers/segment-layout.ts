/**
 * A segmented SIARD file as Python's zipfile module sees it (not our reader): each segment's entries
 * in order, its CRC check, its stated messageDigest against the SHA-256 of its bytes before
 * `header/`, its metadata.xml without the digest; and every table file with its parts joined.
 */
import { execFileSync } from 'node:child_process';

export interface PySegment {
  name: string;
  size: number;
  /** first entry whose CRC fails (zipfile.testzip), or null */
  badEntry: string | null;
  entries: string[];
  statedDigest: string | null;
  prefixSha256: string;
  /** metadata.xml with the <messageDigest> element removed */
  metadataWithoutDigest: string;
}

export interface PyLayout {
  segments: PySegment[];
  /** table XML entry name (unsplit form) -> sha256 and size of the whole, parts joined in segment order */
  tables: Record<string, { sha256: string; size: number; parts: Array<{ segment: string; entry: string }> }>;
}

const SCRIPT = String.raw`
import sys, zipfile, hashlib, json, re, os
paths = json.loads(sys.argv[1])
out = {'segments': [], 'tables': {}}
for p in paths:
    z = zipfile.ZipFile(p)
    infos = z.infolist()
    heads = [i.header_offset for i in infos if i.filename.startswith('header/')]
    end = min(heads) if heads else os.path.getsize(p)
    with open(p, 'rb') as f:
        prefix = hashlib.sha256(f.read(end)).hexdigest()
    md = z.read('header/metadata.xml').decode('utf-8') if 'header/metadata.xml' in z.namelist() else ''
    m = re.search(r'<messageDigest>\s*<digestType>SHA-256</digestType>\s*<digest>([0-9a-f]+)</digest>\s*</messageDigest>', md)
    out['segments'].append({
        'name': os.path.basename(p), 'size': os.path.getsize(p), 'badEntry': z.testzip(),
        'entries': [i.filename for i in infos], 'statedDigest': m.group(1) if m else None,
        'prefixSha256': prefix, 'metadataWithoutDigest': re.sub(r'\s*<messageDigest>[\s\S]*?</messageDigest>', '', md),
    })
    for i in infos:
        mm = re.match(r'^(content/.*\.xml)(\.([1-9][0-9]*|z))?$', i.filename)
        if not mm:
            continue
        t = out['tables'].setdefault(mm.group(1), {'h': hashlib.sha256(), 'size': 0, 'parts': []})
        data = z.read(i)
        t['h'].update(data)
        t['size'] += len(data)
        t['parts'].append({'segment': os.path.basename(p), 'entry': i.filename})
for k, t in out['tables'].items():
    t['sha256'] = t.pop('h').hexdigest()
print(json.dumps(out))
`;

/** The segments (paths, in part order) read by python3's zipfile. */
export function pythonLayout(paths: string[]): PyLayout {
  return JSON.parse(execFileSync('python3', ['-c', SCRIPT, JSON.stringify(paths)], { encoding: 'utf8', maxBuffer: 1 << 26 })) as PyLayout;
}
