/**
 * Writes MemoryAgentBench rows as a Parquet file with the release's nested column layout
 * (context string; questions list<string>; answers list<list<string>>; metadata struct of strings,
 * list<string> and haystack_sessions list<list<list<struct>>>), so the Parquet reader is tested on
 * real Parquet, not on a mock.
 */
import { writeFileSync } from 'node:fs';
import { parquetWriteBuffer } from 'hyparquet-writer';

const str = (name: string) => ({
  name,
  type: 'BYTE_ARRAY' as const,
  converted_type: 'UTF8' as const,
  repetition_type: 'OPTIONAL' as const,
});
const list = (name: string, children: object[]) => [
  { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  ...children,
];
const META_LISTS = ['keypoints', 'previous_events', 'qa_pair_ids', 'question_dates', 'question_ids', 'question_types'];

export interface Row {
  context: string;
  questions: string[];
  answers: string[][];
  metadata: Record<string, unknown>;
}

export function writeRowsParquet(path: string, rows: Row[], opts: { rowGroupSize?: number } = {}): void {
  const schema = [
    { name: 'root', num_children: 4 },
    str('context'),
    ...list('questions', [str('element')]),
    ...list('answers', [
      { name: 'element', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      str('element'),
    ]),
    { name: 'metadata', repetition_type: 'OPTIONAL', num_children: 3 + META_LISTS.length },
    str('demo'),
    // list<list<list<struct{content, has_answer, role}>>>, as in the release (LongMemEval rows only)
    ...list('haystack_sessions', [
      ...list('element', [
        ...list('element', [
          { name: 'element', repetition_type: 'OPTIONAL', num_children: 3 },
          str('content'),
          { name: 'has_answer', type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
          str('role'),
        ]),
      ]),
    ]),
    ...META_LISTS.flatMap((n) => list(n, [str('element')])),
    str('source'),
  ];
  const metadata = rows.map((r) => {
    const m: Record<string, unknown> = {
      demo: (r.metadata.demo as string | null | undefined) ?? null,
      haystack_sessions: r.metadata.haystack_sessions ?? null,
      source: r.metadata.source,
    };
    for (const n of META_LISTS) m[n] = (r.metadata[n] as string[] | null | undefined) ?? null;
    return m;
  });
  const buf = parquetWriteBuffer({
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    schema: schema as any,
    rowGroupSize: opts.rowGroupSize ?? 1000,
    columnData: [
      { name: 'context', data: rows.map((r) => r.context) },
      { name: 'questions', data: rows.map((r) => r.questions) },
      { name: 'answers', data: rows.map((r) => r.answers) },
      { name: 'metadata', data: metadata },
    ],
  });
  writeFileSync(path, new Uint8Array(buf));
}
