/** A game's server-module builds: upload a .wasm (or record a native build), see imports, SHA-256, refusals. */
import { h, onSubmit, replace, table, when } from '../dom.js';
import { base64, RegistryError, type GameView, type ModuleBuild } from '../registry-api.js';
import { describe, type Ui } from '../ui.js';

function buildsTable(builds: ModuleBuild[]): HTMLElement {
  return table(
    ['Version', 'Packaging', 'Size', 'SHA-256', 'Imports', 'Schedulable', 'Uploaded'],
    builds.map((b) => [
      b.Version,
      b.Packaging,
      `${b.SizeBytes} B`,
      h('code', null, b.Sha256 ?? '—'),
      b.Imports.length ? h('ul', null, b.Imports.map((i) => h('li', null, h('code', null, i)))) : '—',
      b.Schedulable ? 'yes' : 'no',
      when(b.CreatedAt),
    ]),
    'No builds yet.',
  );
}

/** What a refused upload shows: the code and message, and the offending imports or problems as a list. */
function refusal(e: unknown): HTMLElement {
  const items = e instanceof RegistryError ? ((e.details.OffendingImports ?? e.details.Problems) as string[] | undefined) : undefined;
  return h(
    'div',
    { class: 'bad' },
    h('p', null, `Refused: ${describe(e)}`),
    items?.length ? [h('p', null, e instanceof RegistryError && e.details.OffendingImports ? 'Imports outside the allowlist:' : 'Problems:'), h('ul', { id: 'offending' }, items.map((i) => h('li', null, h('code', null, i))))] : null,
    h('p', { class: 'muted' }, 'Nothing was stored.'),
  );
}

export async function modulesSection(ui: Ui, game: GameView): Promise<HTMLElement> {
  const r = ui.s.registry;
  const list = h('div', { id: 'builds' }, buildsTable((await ui.attempt('Loading builds', () => r.modules(game.GameId))) ?? []));
  const result = h('div', { id: 'upload-result', role: 'status' });
  const form = h(
    'form',
    { class: 'inline', id: 'upload-module' },
    h('label', null, 'Version (SemVer)', h('input', { name: 'version', required: true, placeholder: '1.0.0', maxLength: 64 })),
    h('label', null, 'Packaging', h('select', { name: 'packaging' }, h('option', { value: 'wasm' }, 'wasm (scanned, runnable)'), h('option', { value: 'native' }, 'native (record only)'))),
    h('label', null, '.wasm file', h('input', { name: 'file', type: 'file', accept: '.wasm,application/wasm' })),
    h('button', { type: 'submit' }, 'Upload'),
  );
  onSubmit(form, (f) => {
    const file = (form.elements.namedItem('file') as HTMLInputElement).files?.[0];
    void (async () => {
      try {
        if (f.packaging === 'wasm' && !file) throw new Error('Choose a .wasm file.');
        const bytes = file && f.packaging === 'wasm' ? new Uint8Array(await file.arrayBuffer()) : undefined;
        const build = await r.uploadModule(game.GameId, { Packaging: f.packaging as 'wasm' | 'native', Version: f.version, ...(bytes ? { WasmBase64: base64(bytes) } : {}) });
        replace(result, h('p', { class: 'ok' }, `Admitted ${build.Version}: SHA-256 `, h('code', null, build.Sha256 ?? '—'), `, ${build.Imports.length} imports.`));
        ui.say(`Build ${build.Version} admitted.`);
        replace(list, buildsTable(await r.modules(game.GameId)));
      } catch (err) {
        replace(result, refusal(err));
        ui.say(`Upload refused: ${describe(err)}`, true);
      }
    })();
  });
  return h('section', { class: 'card' }, h('h2', null, 'Server-module builds'), form, result, list);
}
