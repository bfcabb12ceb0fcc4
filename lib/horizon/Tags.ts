// Horizon's `Tags::for` for a job object built in Node: the tags its `tags()` method would return (Node
// has no PHP methods: HorizonOptions.tags stands in for them), else one `Class:key` tag per Eloquent
// model the job holds, in property order, without duplicates (Horizon 5.29.1 `Tags::for`,
// `Tags::modelsFor`). The target of a queued mailable, notification, broadcast or listener is the job
// itself here: larq builds those wrappers' payloads from PHP, not from Node.
import { modelReference } from '../features/models';
import type { PhpObject } from '../php/values';

/** The tags Horizon's `Tags::for` gives the job object `command`. */
export function tagsFor(
  command: PhpObject,
  explicit?: (command: PhpObject) => readonly string[] | undefined,
): string[] {
  const tags = explicit?.(command);
  if (tags !== undefined && tags.length > 0) return [...new Set(tags)];
  const out: string[] = [];
  for (const property of command.properties) {
    const ref = modelReference(property.value);
    if (ref === null || ref.class === null) continue;
    const keys = ref.kind === 'collection' ? (ref.ids ?? []) : [ref.id];
    for (const key of keys) out.push(`${ref.class}:${String(key)}`);
  }
  return [...new Set(out)];
}
