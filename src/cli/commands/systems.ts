/**
 * `rawrag systems [NAME] [--json]`: every registered system with its kind, its options (the keys
 * of its config section, from the schema the run validates with: type, default, description), the
 * environment variables it reads, how to start what it needs, and its vendor protocol with
 * rawrag's deviations; then the paper's twelve opponents and how each can be run here. Generated
 * from the descriptors, so it cannot drift from what `-S` accepts.
 */
import { Command } from 'commander';
import { z } from 'zod';
import type { SystemDescriptor } from '../../core/system.js';
import { PAPER_OPPONENTS } from '../../systems/opponents.js';
import { getSystem, listSystems } from '../../systems/registry.js';
import { markdownTable } from '../../util/table.js';
import { systemsSubcommands } from './systems-manage.js';

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
  /** Older flags that set the same options. */
  flags: Array<{ flags: string; description: string }>;
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
    flags: (system.options ?? []).map((o) => ({ flags: o.flags, description: o.description })),
  };
}

function opponentRows(): Array<{ name: string; how: string; system: string | null; runnable: boolean; note: string }> {
  const registered = new Set(listSystems().map((s) => s.name));
  return PAPER_OPPONENTS.map((o) => ({
    name: o.name,
    how: o.how,
    system: o.system,
    runnable: o.system !== null && registered.has(o.system),
    note: o.note,
  }));
}

/** A '|' inside a value would split a Markdown cell. */
const cell = (v: string) => v.replace(/\|/g, '\\|');

function overview(): string {
  const systems = listSystems().map(systemInfo);
  const rows = systems.map((s) => [s.name, s.label, s.kind, s.options.length ? String(s.options.length) : '—', cell(s.description)]);
  const opponents = opponentRows().map((o) => [
    o.name,
    o.how === 'import' ? 'import only' : o.how,
    o.system ? (o.runnable ? `--system ${o.system}` : `${o.system} (not in this build)`) : '—',
    o.note,
  ]);
  return [
    markdownTable(['system', 'label', 'kind', 'options', 'what'], rows, ['l', 'l', 'l', 'r', 'l']),
    '',
    "The paper's twelve opponents, and how each runs here:",
    markdownTable(['opponent', 'how', 'run with', 'source'], opponents, ['l', 'l', 'l', 'l']),
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
  if (s.flags.length) out.push('Older flags, kept as aliases:', ...s.flags.map((f) => `  ${f.flags}  ${f.description}`), '');
  if (s.env.length) out.push('Environment:', ...s.env.map((e) => `  ${e.name}  ${e.description}`), '');
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
        process.stdout.write((opts.json ? JSON.stringify(info, null, 2) : detail(info)) + '\n');
        return;
      }
      if (opts.json)
        process.stdout.write(JSON.stringify({ systems: listSystems().map(systemInfo), paper_opponents: opponentRows() }, null, 2) + '\n');
      else process.stdout.write(overview() + '\n');
    });
}
