// Eloquent models in job objects (Laravel `ModelIdentifier`, `CallQueuedHandler::handleModelNotFound`,
// 13.x): a typed view of ModelIdentifier values, and
// CallQueuedHandler's handleModelNotFound for Node handlers. PHP reloads each model while unserializing;
// Node has no Eloquent, so a resolver the user gives says whether a referenced row still exists.
import { LarqError } from '../errors';
import type { CommandHooks, ObjectJobContext } from '../handlers/Handlers';
import type { LaravelLine } from '../LaravelLine';
import { PhpArray, PhpObject, type PhpValue } from '../php/values';
import { toPlain } from '../php/view';

export const MODEL_IDENTIFIER = 'Illuminate\\Contracts\\Database\\ModelIdentifier';

/** One `ModelIdentifier`: a model (`id`) or an Eloquent collection (`ids`). */
export interface ModelReference {
  /** The model class (or morph alias), null for an empty collection of unknown class. */
  readonly class: string | null;
  readonly kind: 'model' | 'collection';
  /** The primary key of a model (bigint for ints, as PHP wrote it). */
  readonly id?: unknown;
  /** The keys of a collection, in order. */
  readonly ids?: unknown[];
  readonly relations: string[];
  readonly connection: string | null;
  /** 9.26+: a custom collection class, null otherwise (and always on 8.x). */
  readonly collectionClass: string | null;
}

/** The typed view of a ModelIdentifier value, or null when `value` is not one. */
export function modelReference(value: PhpValue | undefined): ModelReference | null {
  if (!(value instanceof PhpObject) || value.className !== MODEL_IDENTIFIER) return null;
  const cls = value.get('class');
  const id = value.get('id');
  const relations = value.get('relations');
  const connection = value.get('connection');
  const collectionClass = value.get('collectionClass');
  const base = {
    class: typeof cls === 'string' ? cls : null,
    relations:
      relations instanceof PhpArray
        ? [...relations.entries.values()].filter((r): r is string => typeof r === 'string')
        : [],
    connection: typeof connection === 'string' ? connection : null,
    collectionClass: typeof collectionClass === 'string' ? collectionClass : null,
  };
  if (id instanceof PhpArray)
    return { ...base, kind: 'collection', ids: [...id.entries.values()].map((v) => toPlain(v)) };
  return { ...base, kind: 'model', id: toPlain(id ?? null) };
}

/** Every top-level property of a job object that holds a ModelIdentifier (SerializesModels converts only those). */
export function modelReferences(command: PhpObject): Map<string, ModelReference> {
  const out = new Map<string, ModelReference>();
  for (const p of command.properties) {
    const ref = modelReference(p.value);
    if (ref && !out.has(p.name)) out.set(p.name, ref);
  }
  return out;
}

/** Laravel's ModelNotFoundException, as the worker records it. */
export class ModelNotFoundError extends LarqError {
  constructor(readonly reference: ModelReference) {
    super(`No query results for model [${reference.class ?? ''}] ${String(reference.id)}`);
    this.name = 'ModelNotFoundError';
  }
}

/** Says whether the row a single-model reference points to exists (collections drop missing rows silently in PHP). */
export type ModelResolver = (ref: ModelReference) => boolean | Promise<boolean>;

export interface ModelHooksOptions {
  /** The PHP side's Laravel line: 13 reads `deleteWhenMissingModels` from the payload. */
  line: LaravelLine;
  /** 8.x-12.x: the job classes whose `deleteWhenMissingModels` is true (the payload does not say). */
  deleteWhenMissingModels?: readonly string[];
  /**
   * 12.51+/13.x: when a job that belongs to a batch is deleted for a missing model, Laravel records a batch
   * success for it. Give the repository to do the same (leave it out for earlier versions).
   */
  batches?: { recordSuccessfulJob(batchId: string, uuid: string): Promise<unknown> };
}

/**
 * Laravel `CallQueuedHandler::handleModelNotFound` (13.x) before the handler: when the resolver reports a referenced model missing,
 * the job is deleted (deleteWhenMissingModels) or failed with a ModelNotFoundError, and the handler is
 * skipped. Collections are not checked (PHP drops their missing rows). Unique locks of such a job are not
 * released here (Laravel 11.39+ does it from the Context, which 8.x payloads do not carry).
 */
export function modelHooks(resolver: ModelResolver, options: ModelHooksOptions): CommandHooks {
  const deleting = new Set(options.deleteWhenMissingModels ?? []);
  return {
    feature: 'models',
    async beforeHandle(ctx: ObjectJobContext) {
      for (const ref of modelReferences(ctx.command).values()) {
        if (ref.kind !== 'model' || (await resolver(ref))) continue;
        const shouldDelete =
          options.line >= 13
            ? ctx.payload.decoded.deleteWhenMissingModels === true
            : deleting.has(ctx.payload.commandName ?? ctx.command.className);
        if (shouldDelete) {
          const batchId = ctx.command.get('batchId');
          if (options.batches && typeof batchId === 'string' && batchId !== '' && ctx.uuid)
            await options.batches.recordSuccessfulJob(batchId, ctx.uuid);
          await ctx.delete();
        } else await ctx.fail(new ModelNotFoundError(ref));
        return false;
      }
      return undefined;
    },
  };
}
