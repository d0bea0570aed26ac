/**
 * `rawrag systems [NAME] [--json]`: every registered system with its kind, its options (the keys
 * of its config section, from the schema the run validates with: type, default, description), the
 * environment variables it reads, how to start what it needs, and its vendor protocol with
 * rawrag's deviations; then the paper's twelve opponents and how each can be run here. Generated
 * from the descriptors, so it cannot drift from what `-S` accepts.
 */
import { printOut } from '../../util/stdout.js';
import { Command } from 'commander';
import { z } from 'zod';
import type { SystemDescriptor } from '../../core/system.js';
import { OTHER_OPPONENTS, PAPER_OPPONENTS, type PaperOpponent } from '../../systems/opponents.js';
import { getSystem, listSystems } from '../../systems/registry.js';
import { markdownTable } from '../../util/table.js';
import { systemsSubcommands } from './systems-manage.js';
import type { InstallSpec } from '../../core/install-spec.js';

export interface SystemOptionInfo {
  key: string;
  type: string;
  default: unknown;
  description: string;
}

export interface SystemInfo {
  name: string;
  label: string;
  kind: string;
  description: string;
  /** Its config section (`-S key=value` sets `<section>.key`), null when it has no options. */
  section: string | null;
  options: SystemOptionInfo[];
  env: Array<{ name: string; description: string }>;
  start: string[];
  protocol: { summary: string; sources: string[]; deviations: string[] } | null;
  /** Its own library's install (`rawrag systems install NAME`), when it declares one. */
  install: { library: string; version: string; python: string; from: string; heavy?: string; unavailable?: string } | null;
  /** What it was checked against: "real library X at version V, date" or "stand-in only: why" (services and sidecars). */
  checked: string | null;
}

type JsonSchemaNode = {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchemaNode[];
  const?: unknown;
  description?: string;
  default?: unknown;
  items?: JsonSchemaNode;
};

function typeOf(n: JsonSchemaNode): string {
  if (n.enum) return n.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (n.const !== undefined) return JSON.stringify(n.const);
  if (n.anyOf) return n.anyOf.map(typeOf).join(' | ');
  if (n.type === 'array') return `${n.items ? typeOf(n.items) : 'value'}[]`;
  return Array.isArray(n.type) ? n.type.join(' | ') : (n.type ?? 'value');
}

/** The options of a system, from its section's schema (what `-S` validates against). */
export function optionsOf(system: SystemDescriptor): SystemOptionInfo[] {
  if (!system.config) return [];
  const schema = z.toJSONSchema(system.config.schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, JsonSchemaNode>;
  };
  return Object.entries(schema.properties ?? {}).map(([key, node]) => ({
    key,
    type: typeOf(node),
    default: node.default ?? null,
    description: node.description ?? '',
  }));
}

export function systemInfo(system: SystemDescriptor): SystemInfo {
  const a = system.about;
  return {
    name: system.name,
    label: a?.label ?? system.name,
    kind: a?.kind ?? 'built-in',
    description: system.description,
    section: system.config?.key ?? null,
    options: optionsOf(system),
    env: [...(a?.env ?? [])],
    start: [...(a?.start ?? [])],
    protocol: a?.protocol
      ? { summary: a.protocol.summary, sources: [...a.protocol.sources], deviations: [...a.protocol.deviations] }
      : null,
    install: installOf(a?.install),
    checked: checkedOf(system),
  };
}

function installOf(i: InstallSpec | undefined): SystemInfo['install'] {
  if (!i) return null;
  return {
    library: i.library.name,
    version: i.library.version,
    python: i.python,
    from: installFrom(i),
    ...(i.heavy ? { heavy: i.heavy } : {}),
    ...(i.unavailable ? { unavailable: i.unavailable } : {}),
  };
}

/** Where `rawrag systems install` takes the library from: a checkout, the packages it installs (those without their declared requirements too), or nowhere. */
function installFrom(i: InstallSpec): string {
  if (i.source) return `checkout of ${i.source.repo}@${i.source.commit}`;
  const packages = [...(i.packages ?? []), ...(i.noDeps?.packages ?? []).map((p) => `${p} (--no-deps)`)];
  return packages.length ? `package index (${packages.join(' ')})` : 'no package or checkout declared';
}

/** The plug-in's `checked` as a line; a service or sidecar that records none was checked against rawrag's stand-in only. */
export function checkedOf(system: SystemDescriptor): string | null {
  const a = system.about;
  if (a?.kind !== 'service' && a?.kind !== 'sidecar') return null;
  const c = a.checked;
  if (c?.kind === 'real') return `real library ${c.library} at version ${c.version}, ${c.date} (${c.how})`;
  if (c?.kind === 'stand-in') return `stand-in only: ${c.why}`;
  if (a.install?.unavailable) return `stand-in only: its library cannot be installed here (${a.install.unavailable})`;
  return a.install
    ? `stand-in only: ${a.install.library.name} ${a.install.library.version} is declared for 'rawrag systems install' but no real-library run is recorded`
    : 'stand-in only: no install of its own library is declared (a loopback imitation of its API, or its library stand-in, in tests/)';
}

function opponentRows(list: readonly PaperOpponent[] = PAPER_OPPONENTS): Array<{
  name: string;
  how: string;
  system: string | null;
  runnable: boolean;
  note: string;
  checked: string | null;
}> {
  const registered = new Map(listSystems().map((s) => [s.name, s]));
  return list.map((o) => ({
    name: o.name,
    how: o.how,
    system: o.system,
    runnable: o.system !== null && registered.has(o.system),
    note: o.note,
    checked: o.system && registered.has(o.system) ? checkedOf(registered.get(o.system)!) : null,
  }));
}

/** A '|' inside a value would split a Markdown cell. */
const cell = (v: string) => v.replace(/\|/g, '\\|');

function overview(): string {
  const systems = listSystems().map(systemInfo);
  const rows = systems.map((s) => [s.name, s.label, s.kind, s.options.length ? String(s.options.length) : '—', cell(s.description)]);
  const table = (list: readonly PaperOpponent[]) =>
    markdownTable(
      ['opponent', 'how', 'run with', 'source', 'checked against'],
      opponentRows(list).map((o) => [
        o.name,
        o.how === 'import' ? 'import only' : o.how,
        o.system ? (o.runnable ? `--system ${o.system}` : `${o.system} (not in this build)`) : '—',
        o.note,
        cell(o.checked ?? '—'),
      ]),
      ['l', 'l', 'l', 'l', 'l'],
    );
  return [
    markdownTable(['system', 'label', 'kind', 'options', 'what'], rows, ['l', 'l', 'l', 'r', 'l']),
    '',
    "The paper's twelve opponents, and how each runs here:",
    table(PAPER_OPPONENTS),
    '',
    "Beyond the paper's twelve:",
    table(OTHER_OPPONENTS),
    '',
    "rawrag systems NAME lists a system's options (-S key=value), environment, start commands and vendor protocol.",
  ].join('\n');
}

function detail(s: SystemInfo): string {
  const out = [`${s.label} (--system ${s.name}, ${s.kind}): ${s.description}`, ''];
  if (s.options.length) {
    out.push(`Options (-S key=value; config section '${s.section}:'):`);
    out.push(
      markdownTable(
        ['key', 'type', 'default', 'description'],
        s.options.map((o) => [o.key, cell(o.type), o.default === null ? '—' : JSON.stringify(o.default), cell(o.description)]),
        ['l', 'l', 'l', 'l'],
      ),
      '',
    );
  } else out.push('No options of its own.', '');
  if (s.env.length) out.push('Environment:', ...s.env.map((e) => `  ${e.name}  ${e.description}`), '');
  if (s.install)
    out.push(
      `Install (rawrag systems install ${s.name}): ${s.install.library} ${s.install.version} ${s.install.from.startsWith('no ') ? `(${s.install.from})` : `from the ${s.install.from}`}, Python ${s.install.python}${s.install.heavy ? `; heavy: ${s.install.heavy}` : ''}`,
      ...(s.install.unavailable ? [`  cannot be installed here: ${s.install.unavailable}`] : []),
      '',
    );
  if (s.checked) out.push(`Checked against: ${s.checked}`, '');
  if (s.start.length) out.push('Start it:', ...s.start.map((c) => `  ${c}`), '');
  if (s.protocol) {
    out.push('Vendor protocol (the default):', `  ${s.protocol.summary}`, 'Follows:', ...s.protocol.sources.map((x) => `  ${x}`));
    out.push('Deviations:', ...(s.protocol.deviations.length ? s.protocol.deviations.map((d) => `  - ${d}`) : ['  none']), '');
  }
  return out.join('\n').trimEnd();
}

export function systemsCommand(): Command {
  const cmd = new Command('systems');
  for (const sub of systemsSubcommands()) cmd.addCommand(sub);
  return cmd
    .description("the systems under test: options (-S key=value), environment, how to start each, vendor protocol; the paper's opponents")
    .argument('[name]', 'one system in detail')
    .option('--json', 'print as JSON')
    .action((name: string | undefined, opts: { json?: boolean }) => {
      if (name) {
        const info = systemInfo(getSystem(name));
        printOut((opts.json ? JSON.stringify(info, null, 2) : detail(info)) + '\n');
        return;
      }
      if (opts.json)
        printOut(
          JSON.stringify(
            { systems: listSystems().map(systemInfo), paper_opponents: opponentRows(), other_opponents: opponentRows(OTHER_OPPONENTS) },
            null,
            2,
          ) + '\n',
        );
      else printOut(overview() + '\n');
    });
}
