<?php
// Loads the Laravel line the interop specs asked for (LARQ_LARAVEL) and nothing of any other line:
//
//   8.83   Debian's php-laravel-framework under /usr/share/php (its own autoload.php).
//   12.67  src/Illuminate of the laravel/framework v12.67.0 release, unpacked by scripts/setup (or by
//   13.26  spec/support/laravel.ts) into .cache/laravel/<line>/; LARQ_LARAVEL_SRC names another folder
//          holding that src/. There is no Composer here: an autoloader of our own maps Illuminate\...
//          onto src/Illuminate, the helper files are required by hand, and every other vendor
//          (Carbon, ramsey/uuid, the PSR interfaces, Symfony's components, doctrine/inflector,
//          laravel/serializable-closure, voku's portable-ascii) comes from Debian's packages.
//
// Laravel 13 asks for PHP 8.3+, and Debian 12 has 8.2: the PHP 8.4 array and mbstring functions the
// framework calls are defined here, and only where PHP lacks them, with PHP's documented meaning.

declare(strict_types=1);

/** The Laravel lines this harness boots; the first is the default. */
const LARQ_LARAVEL_LINES = ['8.83', '12.67', '13.26'];

/** The line LARQ_LARAVEL names (default 8.83); anything else is a usage error. */
function larq_laravel_line(): string
{
    $line = getenv('LARQ_LARAVEL');
    if ($line === false || $line === '') {
        return LARQ_LARAVEL_LINES[0];
    }
    if (!in_array($line, LARQ_LARAVEL_LINES, true)) {
        fwrite(STDERR, "LARQ_LARAVEL={$line}: not a Laravel line of this harness (" . implode(', ', LARQ_LARAVEL_LINES) . ")\n");
        exit(3);
    }
    return $line;
}

/** The Laravel major version of the loaded line (8, 12 or 13). */
function larq_laravel_major(): int
{
    return (int) explode('.', larq_laravel_line())[0];
}

/** Requires the autoloaders of the selected line; once. */
function larq_load_laravel(): void
{
    static $loaded = false;
    if ($loaded) {
        return;
    }
    $loaded = true;

    $line = larq_laravel_line();
    if ($line === '8.83') {
        require_once '/usr/share/php/Illuminate/autoload.php';
        return;
    }

    $root = getenv('LARQ_LARAVEL_SRC');
    if ($root === false || $root === '') {
        $root = dirname(__DIR__, 2) . '/.cache/laravel/' . $line;
    }
    $src = rtrim($root, '/') . '/src/Illuminate';
    if (!is_file($src . '/Foundation/Application.php')) {
        fwrite(STDERR, "Laravel {$line} is not unpacked at {$root} (run scripts/setup; it needs ../shared/laravel)\n");
        exit(3);
    }

    larq_define_php84_functions();
    larq_register_illuminate_autoloader($src);

    // Debian's vendors, never Debian's Illuminate: their autoload.php files are class maps that only
    // require other vendors.
    foreach ([
        'Psr/Container/autoload.php',
        'Psr/Log/autoload.php',
        'Psr/SimpleCache/autoload.php',
        'Psr/EventDispatcher/autoload.php',
        'Carbon/autoload.php',
        'Ramsey/Uuid/autoload.php',
        'Doctrine/Inflector/autoload.php',
        'Symfony/Component/Console/autoload.php',
        'Symfony/Component/Process/autoload.php',
        'Symfony/Component/Finder/autoload.php',
        'Laravel/SerializableClosure/autoload.php',
        'voku/helper/autoload.php',
    ] as $file) {
        require_once '/usr/share/php/' . $file;
    }

    // The framework's helper files, which Composer's "files" autoload would require.
    foreach ([
        'Collections/functions.php',
        'Collections/helpers.php',
        'Support/functions.php',
        'Support/helpers.php',
        'Events/functions.php',
        'Foundation/helpers.php',
    ] as $file) {
        if (is_file("{$src}/{$file}")) {
            require_once "{$src}/{$file}";
        }
    }
}

/**
 * Classes of 12/13 that Debian's older vendors cannot load, and the harness's stand-ins (shims/):
 * OutputStyle is written against Symfony Console 7, Debian has 6.2.
 */
const LARQ_SHIMS = ['Illuminate\\Console\\OutputStyle' => 'OutputStyle.php'];

/**
 * Illuminate\<Component>\<Rest> lives in src/Illuminate/<Component>/<Rest>.php, except that the
 * Illuminate\Support namespace is spread over Support and the split packages Macroable, Collections,
 * Conditionable and Reflection (each its own Composer package with an Illuminate\Support\ root).
 */
function larq_register_illuminate_autoloader(string $src): void
{
    spl_autoload_register(static function (string $class) use ($src): void {
        if (!str_starts_with($class, 'Illuminate\\')) {
            return;
        }
        if (isset(LARQ_SHIMS[$class])) {
            require __DIR__ . '/shims/' . LARQ_SHIMS[$class];
            return;
        }
        $relative = str_replace('\\', '/', substr($class, strlen('Illuminate\\'))) . '.php';
        $candidates = ["{$src}/{$relative}"];
        if (str_starts_with($relative, 'Support/')) {
            $rest = substr($relative, strlen('Support/'));
            foreach (['Macroable', 'Collections', 'Conditionable', 'Reflection'] as $split) {
                $candidates[] = "{$src}/{$split}/{$rest}";
            }
        }
        foreach ($candidates as $file) {
            if (is_file($file)) {
                require $file;
                return;
            }
        }
    });
}

/** PHP 8.4's functions that Laravel 12/13 call, for PHP 8.2; each only where PHP lacks it. */
function larq_define_php84_functions(): void
{
    if (!function_exists('array_find')) {
        function array_find(array $array, callable $callback): mixed
        {
            foreach ($array as $key => $value) {
                if ($callback($value, $key)) {
                    return $value;
                }
            }
            return null;
        }
    }
    if (!function_exists('array_find_key')) {
        function array_find_key(array $array, callable $callback): mixed
        {
            foreach ($array as $key => $value) {
                if ($callback($value, $key)) {
                    return $key;
                }
            }
            return null;
        }
    }
    if (!function_exists('array_any')) {
        function array_any(array $array, callable $callback): bool
        {
            foreach ($array as $key => $value) {
                if ($callback($value, $key)) {
                    return true;
                }
            }
            return false;
        }
    }
    if (!function_exists('array_all')) {
        function array_all(array $array, callable $callback): bool
        {
            foreach ($array as $key => $value) {
                if (!$callback($value, $key)) {
                    return false;
                }
            }
            return true;
        }
    }
    if (!function_exists('array_first')) {
        function array_first(array $array): mixed
        {
            return $array === [] ? null : $array[array_key_first($array)];
        }
    }
    if (!function_exists('array_last')) {
        function array_last(array $array): mixed
        {
            return $array === [] ? null : $array[array_key_last($array)];
        }
    }
    if (!function_exists('mb_ucfirst')) {
        function mb_ucfirst(string $string, ?string $encoding = null): string
        {
            $encoding ??= mb_internal_encoding();
            return mb_convert_case(mb_substr($string, 0, 1, $encoding), MB_CASE_TITLE, $encoding)
                . mb_substr($string, 1, null, $encoding);
        }
    }
    if (!function_exists('mb_lcfirst')) {
        function mb_lcfirst(string $string, ?string $encoding = null): string
        {
            $encoding ??= mb_internal_encoding();
            return mb_convert_case(mb_substr($string, 0, 1, $encoding), MB_CASE_LOWER, $encoding)
                . mb_substr($string, 1, null, $encoding);
        }
    }
    if (!function_exists('mb_trim')) {
        function mb_trim(string $string, ?string $characters = null, ?string $encoding = null): string
        {
            return mb_ltrim(mb_rtrim($string, $characters, $encoding), $characters, $encoding);
        }
    }
    if (!function_exists('mb_ltrim')) {
        function mb_ltrim(string $string, ?string $characters = null, ?string $encoding = null): string
        {
            return (string) preg_replace('/^[' . larq_trim_class($characters) . ']+/u', '', $string);
        }
    }
    if (!function_exists('mb_rtrim')) {
        function mb_rtrim(string $string, ?string $characters = null, ?string $encoding = null): string
        {
            return (string) preg_replace('/[' . larq_trim_class($characters) . ']+$/u', '', $string);
        }
    }
}

/** A regex character class of the characters mb_trim strips (PHP's default set when null). */
function larq_trim_class(?string $characters): string
{
    if ($characters === null) {
        return '\s\x{0000}\x{000B}\x{00A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{0085}\x{180E}';
    }
    return preg_quote($characters, '/');
}
