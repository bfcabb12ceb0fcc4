/**
 * The Laravel release line of the PHP peers, which decides payload field order, trait properties, the
 * default key prefix and cluster key form. 8: Laravel 8.x-11.x (and 12.0-12.10). 12: 12.51+, adding
 * `createdAt`, `delay` and `data.batchId`, and SerializesModels' 9.4+ default omission. 13: 13.x, adding
 * `deleteWhenMissingModels` and 13.x's queue traits, prefix and cluster keys.
 */
export type LaravelLine = 8 | 12 | 13;
