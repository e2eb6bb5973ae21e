import { describe, expect, it } from 'vitest';
import { dotnetCataloger, isDepsJsonPath } from '../../../../src/ecosystems/nuget/cataloger.js';
import type { CatalogedPackage } from '../../../../src/ecosystems/model.js';
import { aspNetDepsJson } from '../../../support/language-fixtures.js';

const parse = (path: string, content: string | Buffer) => dotnetCataloger.parse(path, Buffer.from(content)) as CatalogedPackage[];

describe('.NET deps.json', () => {
  it("lists an ASP.NET app's NuGet packages, not the project itself", () => {
    const pkgs = parse('/app/WebShop.deps.json', aspNetDepsJson());
    expect(pkgs.map((p) => p.purl)).toEqual([
      'pkg:nuget/Newtonsoft.Json@13.0.1',
      'pkg:nuget/System.Text.Encodings.Web@4.7.1',
      'pkg:nuget/Microsoft.Data.SqlClient@5.1.1',
      'pkg:nuget/Microsoft.Identity.Client@4.47.2',
    ]);
    expect(pkgs[0]).toMatchObject({
      name: 'Newtonsoft.Json',
      version: '13.0.1',
      type: 'nuget',
      locations: ['/app/WebShop.deps.json'],
      metadata: { libraryType: 'package', path: 'newtonsoft.json/13.0.1', hashPath: 'newtonsoft.json.13.0.1.nupkg.sha512' },
    });
    expect(pkgs[0]!.metadata.sha512).toMatch(/^sha512-/);
  });

  it("keeps a self-contained app's runtime pack, drops framework references", () => {
    const deps = {
      libraries: {
        'App/1.0.0': { type: 'project' },
        'runtimepack.Microsoft.NETCore.App.Runtime.linux-x64/8.0.0': { type: 'runtimepack', serviceable: false, sha512: '' },
        'Microsoft.NETCore.App.Runtime.linux-x64/8.0.0': { type: 'runtimepack', serviceable: false, sha512: '' },
        'System.Runtime/8.0.0.0': { type: 'referenceassembly', serviceable: false, sha512: '' },
      },
    };
    expect(parse('/app/App.deps.json', JSON.stringify(deps)).map((p) => p.name)).toEqual(['runtimepack.Microsoft.NETCore.App.Runtime.linux-x64', 'Microsoft.NETCore.App.Runtime.linux-x64']);
  });

  it('reads deps.json files outside the NuGet cache only', () => {
    expect(isDepsJsonPath('/app/WebShop.deps.json')).toBe(true);
    expect(isDepsJsonPath('/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.0/Microsoft.NETCore.App.deps.json')).toBe(true);
    expect(isDepsJsonPath('/root/.nuget/packages/dotnet-ef/8.0.0/tools/net8.0/any/dotnet-ef.deps.json')).toBe(false);
    expect(isDepsJsonPath('/app/appsettings.json')).toBe(false);
  });

  it('yields nothing for garbage and odd shapes, and skips malformed keys', () => {
    for (const junk of ['', 'not json', '[]', '{"libraries":[]}', '{"libraries":{"x":5}}', '\0\0'])
      expect(parse('/app/a.deps.json', junk)).toEqual([]);
    const odd = { libraries: { 'NoVersion/': { type: 'package' }, '/1.0.0': { type: 'package' }, 'Bad Name/1.0.0': { type: 'package' }, 'Good/1.0.0': { type: 'package' } } };
    expect(parse('/app/a.deps.json', JSON.stringify(odd)).map((p) => p.name)).toEqual(['Good']);
  });
});
