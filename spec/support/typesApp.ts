// The Laravel app of the `larq types` specs: spec/support/types-app (composer.json with the PSR-4 root
// Shop\ => app/, 17 queueable classes and the enums, model and value classes they use) copied into a
// temporary folder, with a vendor/autoload.php standing in for Composer's: it loads the harness's Laravel
// line (compat-fixtures/php/laravel.php, LARQ_LARAVEL) and registers the app's PSR-4 roots.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { PHP_DIR } from './php';

const SOURCE = join(__dirname, 'types-app');

/** Where the generated module imports larq from: this checkout's lib, as a user's imports 'larq'. */
export const LIB = join(__dirname, '..', '..', 'lib');

/** A copy of the types app; remove() deletes it. */
export interface TypesApp {
  dir: string;
  remove(): void;
}

/** Copy the types app into a temporary folder and give it its vendor/autoload.php. */
export function makeTypesApp(): TypesApp {
  const dir = mkdtempSync(join(tmpdir(), 'larq-types-app-'));
  cpSync(SOURCE, dir, { recursive: true });
  mkdirSync(join(dir, 'vendor'));
  writeFileSync(
    join(dir, 'vendor', 'autoload.php'),
    `<?php
// Composer's autoloader stands in: the harness's Laravel line, then this app's PSR-4 roots.
require_once ${JSON.stringify(join(PHP_DIR, 'laravel.php'))};
larq_load_laravel();
$composer = json_decode(file_get_contents(dirname(__DIR__) . '/composer.json'), true);
foreach ($composer['autoload']['psr-4'] as $prefix => $dir) {
    spl_autoload_register(function (string $class) use ($prefix, $dir): void {
        if (str_starts_with($class, $prefix)) {
            $file = dirname(__DIR__) . '/' . $dir . str_replace('\\\\', '/', substr($class, strlen($prefix))) . '.php';
            if (is_file($file)) {
                require $file;
            }
        }
    });
}
`,
  );
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
