/**
 * Capitalised words that open LoCoMo turns but name no entity: the responders that pull "entities"
 * out of a turn's capitalised words (Graphiti's, Cognee's) skip them.
 */
export const NOT_ENTITIES: ReadonlySet<string> = new Set([
  'Hey',
  'Hi',
  'Hello',
  'The',
  'That',
  'This',
  'What',
  'Yes',
  'Yeah',
  'Thanks',
  'Wow',
  'And',
  'But',
  'Oh',
  'Well',
  'So',
]);
