/**
 * Routines, users, roles and privileges of a received package are carried into the re-segmented
 * archive with every element the SIARD 2.2 metadata.xsd gives them, for SIARD 2.1 and 2.2 input.
 * The samples in ../shared carry only some of these elements (no routine body, characteristic or
 * description, no grant option, no UDT parameter), so the test writes a package whose metadata.xml
 * has all of them, with text that needs escaping (CR, runs of spaces, a back-slash, `<`, non-ASCII).
 * The output must validate against the official metadata.xsd (xmllint) and hold the same elements
 * as the input, compared through Python's XML parser. A grant option the XSD does not allow is
 * left out and named in the "not exported" list of `export` and of `ingest --resegment`.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { unzipEntry, xmllint } from '../helpers/export-support.js';
import { runCli } from '../helpers/cli.js';
import { metadataGrantsOf, type ElementTree } from '../helpers/metadata-grants.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const OFFICIAL_XSD = reference('siard', 'metadata.xsd');
const ENV = { SIARD_OCFL_USER_NAME: 'Test', SIARD_OCFL_USER_ADDRESS: 'mailto:test@example.org' };

const ROUTINES = `<routines>
  <routine>
    <specificName>price_with_tax_1</specificName>
    <name>price_with_tax</name>
    <description>Adds  the tax; "rounded" &lt;down&gt; — ünd so</description>
    <source>BEGIN&#xD;
  RETURN p * 1.081;  -- C:\\tax\\rates&#xD;
END;</source>
    <body>RETURN p * 1.081</body>
    <characteristic>DETERMINISTIC</characteristic>
    <returnType>DECIMAL(10, 2)</returnType>
    <parameters>
      <parameter><name>p</name><mode>IN</mode><type>DECIMAL(10, 2)</type><typeOriginal>NUMBER(10,2)</typeOriginal>
        <description>the net price</description></parameter>
      <parameter><name>addr</name><mode>INOUT</mode><typeSchema>s</typeSchema><typeName>address_t</typeName>
      </parameter>
      <parameter><name>codes</name><mode>OUT</mode><type>VARCHAR(5)</type><cardinality>4</cardinality></parameter>
    </parameters>
  </routine>
  <routine><specificName>noop</specificName><name>noop</name></routine>
</routines>`;

const USERS_ROLES_PRIVILEGES = `
<users><user><name>alice</name><description>the owner</description></user><user><name>bob</name></user></users>
<roles>
  <role><name>reader</name><admin>alice</admin><description>may read</description></role>
  <role><name>clerk</name><admin>reader</admin></role>
</roles>
<privileges>
  <privilege><type>SELECT</type><object>s.t</object><grantor>alice</grantor><grantee>reader</grantee><option>GRANT</option>
    <description>reads t</description></privilege>
  <privilege><type>reader</type><grantor>alice</grantor><grantee>bob</grantee><option> ADMIN </option></privilege>
  <privilege><type>UPDATE</type><object>s.t</object><grantor>alice</grantor><grantee>PUBLIC</grantee><option>with grant</option>
  </privilege>
</privileges>`;

/** A one-table SIARD package of the given version whose metadata.xml carries the objects above. */
function writePackage(file: string, version: string): void {
  const metadata = `<?xml version="1.0" encoding="UTF-8"?>
<siardArchive xmlns="http://www.bar.admin.ch/xmlns/siard/2/metadata.xsd" version="${version}">
<dbname>grants</dbname><dataOwner>test</dataOwner><dataOriginTimespan>2024</dataOriginTimespan>
<archivalDate>2024-05-01</archivalDate>
<schemas><schema><name>s</name><folder>schema0</folder>
<tables><table><name>t</name><folder>table0</folder>
  <columns><column><name>id</name><type>INTEGER</type></column></columns><rows>1</rows></table></tables>
${ROUTINES}
</schema></schemas>
${USERS_ROLES_PRIVILEGES}
</siardArchive>`;
  const table =
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<table xmlns="http://www.bar.admin.ch/xmlns/siard/2/table.xsd" version="${version}"><row><c1>7</c1></row></table>`;
  const script = `
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)
z.writestr('header/siardversion/${version}/', b'')
z.writestr('header/metadata.xml', sys.argv[2])
z.writestr('content/schema0/table0/table0.xml', sys.argv[3])
z.close()
`;
  execFileSync('python3', ['-c', script, file, metadata, table]);
}

/** The input's trees with the option element the XSD does not allow taken out. */
function withoutInvalidOption(privileges: ElementTree[]): ElementTree[] {
  return privileges.map(([name, text, kids]) => [name, text, kids.filter(([n, v]) => !(n === 'option' && v === 'with grant'))]);
}

for (const version of ['2.1', '2.2']) {
  sharedTest(`SIARD ${version}: routines, users, roles and privileges are re-segmented element by element and validate`, async (t) => {
    const dir = tempDir('siard-ocfl-reseg-grants-');
    const received = path.join(dir, 'grants.siard');
    writePackage(received, version);
    const res = await runCli(['export', received, path.join(dir, 'out'), '--json']);
    t.is(res.code, 0, res.stderr);
    const made = path.join(dir, 'out', 'grants.siard');
    const metadataFile = path.join(dir, 'metadata.xml');
    writeFileSync(metadataFile, unzipEntry(made, 'header/metadata.xml'));
    t.is(xmllint(OFFICIAL_XSD, metadataFile), '', 'metadata.xml validates against the official 2.2 metadata.xsd');

    const input = metadataGrantsOf(received);
    const output = metadataGrantsOf(made);
    // The input is what the test wrote: two routines (one with three parameters), two users, two roles, three grants.
    t.is(input.routines['s']?.length, 2);
    t.is(input.routines['s']?.[0]?.[2].find(([n]) => n === 'parameters')?.[2].length, 3);
    t.deepEqual([input.users.length, input.roles.length, input.privileges.length], [2, 2, 3]);
    t.deepEqual(output.routines, input.routines, 'routines, with every element and parameter');
    t.deepEqual(output.users, input.users, 'users');
    t.deepEqual(output.roles, input.roles, 'roles');
    // " ADMIN " is the XSD's ADMIN (privOptionType collapses white space); "with grant" is no option it allows.
    const trimOption = ([n, v, kids]: ElementTree): ElementTree => [n, n === 'option' ? v!.trim() : v, kids];
    const expected = withoutInvalidOption(input.privileges).map(([n, v, kids]) => [n, v, kids.map(trimOption)]);
    t.deepEqual(output.privileges, expected, 'privileges, the unusable option left out');
    const dropped = 'the option "with grant" (neither ADMIN nor GRANT) of the privilege UPDATE on s.t to PUBLIC of the received package';
    t.deepEqual(JSON.parse(res.stdout).notExported, [dropped]);
    // ingest --resegment says so too.
    const root = path.join(dir, 'root');
    t.is((await runCli(['init', root])).code, 0);
    const ingest = await runCli(['ingest', received, '--root', root, '--id', 'urn:x:grants', '--resegment', '--json'], { env: ENV });
    t.is(ingest.code, 0, ingest.stderr);
    t.deepEqual(
      JSON.parse(ingest.stdout).notes.filter((n: string) => n.startsWith('Not exported')),
      [`Not exported: ${dropped}.`],
    );
  });
}
