<?php
// `larq types`' PHP side: run with the app's own PHP from the app's folder, after its vendor/autoload.php.
// Finds the app's queueable classes under the PSR-4 roots of its composer.json (jobs implementing
// ShouldQueue, queued listeners, notifications, mailables) and the classes their properties use (enums,
// Eloquent models, dates, value classes, followed recursively), and prints one JSON document describing
// each. It only reflects: no class is instantiated and no constructor runs.
//
// Property order is the order PHP serializes them in: with SerializesModels (Laravel `SerializesModels::
// __serialize`, 12.x/13.x) that of ReflectionClass::getProperties(), privates mangled with the object's own
// class; without it, PHP's property slots: the root parent's first, a redeclared non-private property
// keeping its parent's slot.
//
// Usage: php reflect.php APP_DIR

declare(strict_types=1);

$app = realpath($argv[1] ?? getcwd());
if ($app === false || !is_file("$app/vendor/autoload.php") || !is_file("$app/composer.json")) {
    fwrite(STDERR, "larq types: " . ($argv[1] ?? getcwd()) . " has no vendor/autoload.php and composer.json (run it in the Laravel app)\n");
    exit(3);
}
require "$app/vendor/autoload.php";

$composer = json_decode((string) file_get_contents("$app/composer.json"), true);
$roots = $composer['autoload']['psr-4'] ?? [];

const QUEUEABLE_KINDS = [
    'Illuminate\Notifications\Notification' => 'notification',
    'Illuminate\Mail\Mailable' => 'mail',
];

/** Every class declared under the PSR-4 roots, by the file name rule PSR-4 gives. */
function larq_types_candidates(string $app, array $roots): array
{
    $names = [];
    foreach ($roots as $prefix => $dirs) {
        foreach ((array) $dirs as $dir) {
            $base = realpath("$app/$dir");
            if ($base === false) {
                continue;
            }
            $files = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($base, FilesystemIterator::SKIP_DOTS));
            foreach ($files as $file) {
                if ($file->getExtension() !== 'php') {
                    continue;
                }
                $relative = substr($file->getPathname(), strlen($base) + 1, -4);
                $names[] = $prefix . str_replace('/', '\\', $relative);
            }
        }
    }
    sort($names);
    return $names;
}

function larq_types_exists(string $name): bool
{
    try {
        return class_exists($name) || interface_exists($name, false) || enum_exists($name);
    } catch (Throwable $e) {
        return false;
    }
}

/** What Laravel does with objects of a class in a job: its kind, or null for a class larq leaves alone. */
function larq_types_kind(ReflectionClass $c): ?string
{
    if ($c->isInterface() || $c->isAbstract() || $c->isTrait()) {
        return null;
    }
    if ($c->isEnum()) {
        return 'enum';
    }
    if ($c->isSubclassOf('Illuminate\Database\Eloquent\Model')) {
        return 'model';
    }
    if ($c->implementsInterface(DateTimeInterface::class)) {
        return 'date';
    }
    $queued = $c->implementsInterface('Illuminate\Contracts\Queue\ShouldQueue');
    foreach (QUEUEABLE_KINDS as $base => $kind) {
        if ($c->isSubclassOf($base)) {
            return $queued ? $kind : null;
        }
    }
    if (!$queued) {
        return null;
    }
    // A queued listener is never dispatched itself (no Dispatchable) and its handle() takes the event, a
    // concrete class: the event travels, in a CallQueuedListener, not the listener.
    $event = $c->hasMethod('handle') ? larq_types_event_of($c) : null;
    $listener = $event !== null && class_exists($event) && !(new ReflectionClass($event))->isAbstract()
        && !in_array('Illuminate\Foundation\Bus\Dispatchable', larq_types_traits($c), true);
    return $listener ? 'listener' : 'job';
}

/** Every trait a class uses, its parents' and nested ones included. */
function larq_types_traits(ReflectionClass $c): array
{
    $out = [];
    for ($k = $c; $k !== false; $k = $k->getParentClass()) {
        $stack = $k->getTraitNames();
        while ($stack) {
            $t = array_shift($stack);
            if (!in_array($t, $out, true)) {
                $out[] = $t;
                $stack = array_merge($stack, (new ReflectionClass($t))->getTraitNames());
            }
        }
    }
    return $out;
}

function larq_types_event_of(ReflectionClass $c): ?string
{
    $params = $c->getMethod('handle')->getParameters();
    $type = $params[0] ?? null ? $params[0]->getType() : null;
    return $type instanceof ReflectionNamedType && !$type->isBuiltin() ? $type->getName() : null;
}

/** A default value as the TypeScript side reads it: the shape describe.php uses, enough for defaults. */
function larq_types_value($v): array
{
    if ($v === null) return ['t' => 'null'];
    if (is_bool($v)) return ['t' => 'bool', 'v' => $v];
    if (is_int($v)) return ['t' => 'int', 'v' => (string) $v];
    if (is_float($v)) return ['t' => 'float', 'v' => var_export($v, true)];
    if (is_string($v)) return ['t' => 'string', 'v' => $v];
    if ($v instanceof UnitEnum) return ['t' => 'enum', 'class' => get_class($v), 'case' => $v->name];
    if (is_array($v)) {
        $entries = [];
        foreach ($v as $k => $item) {
            $entries[] = ['k' => is_int($k) ? ['t' => 'int', 'v' => (string) $k] : ['t' => 'string', 'v' => $k], 'v' => larq_types_value($item)];
        }
        return ['t' => 'array', 'entries' => $entries];
    }
    throw new UnexpectedValueException(get_debug_type($v));
}

function larq_types_type(?ReflectionType $t): ?string
{
    return $t === null ? null : (string) $t;
}

/** The classes a type names (a union's members too), without builtins. */
function larq_types_named(?ReflectionType $t): array
{
    if ($t instanceof ReflectionNamedType) {
        return $t->isBuiltin() || in_array($t->getName(), ['self', 'static'], true) ? [] : [$t->getName()];
    }
    if ($t instanceof ReflectionUnionType || $t instanceof ReflectionIntersectionType) {
        return array_merge(...array_map('larq_types_named', $t->getTypes()));
    }
    return [];
}

/** The properties in serialized order (see the header). */
function larq_types_ordered(ReflectionClass $c, bool $serializesModels): array
{
    $own = array_values(array_filter($c->getProperties(), fn ($p) => !$p->isStatic()));
    if ($serializesModels) {
        return $own;
    }
    $chain = [];
    for ($k = $c; $k !== false; $k = $k->getParentClass()) {
        array_unshift($chain, $k);
    }
    $slots = [];
    foreach ($chain as $k) {
        foreach ($k->getProperties() as $p) {
            if ($p->isStatic() || $p->getDeclaringClass()->getName() !== $k->getName()) {
                continue;
            }
            $key = $p->isPrivate() ? "{$k->getName()}\0{$p->getName()}" : $p->getName();
            $slots[$key] = $p; // a redeclared public or protected property keeps its parent's slot
        }
    }
    // the object's class reflects its own view of each property (a widened visibility, its default)
    return array_map(function (ReflectionProperty $p) use ($c) {
        return $p->isPrivate() ? $p : $c->getProperty($p->getName());
    }, array_values($slots));
}

function larq_types_describe(ReflectionClass $c, string $kind, array &$queue, string $app): array
{
    $out = ['name' => $c->getName(), 'kind' => $kind];
    $file = $c->getFileName();
    if ($file !== false && str_starts_with($file, $app . '/')) {
        $out['file'] = substr($file, strlen($app) + 1);
    }
    if ($kind === 'enum') {
        $enum = new ReflectionEnum($c->getName());
        $out['backing'] = $enum->isBacked() ? (string) $enum->getBackingType() : null;
        $out['cases'] = array_map(fn ($case) => $enum->isBacked()
            ? ['name' => $case->getName(), 'value' => larq_types_value($case->getBackingValue())]
            : ['name' => $case->getName()], $enum->getCases());
        return $out;
    }
    if ($kind === 'model' || $kind === 'date') {
        return $out;
    }
    $traits = larq_types_traits($c);
    $serializesModels = in_array('Illuminate\Queue\SerializesModels', $traits, true);
    $out['traits'] = $traits;
    $out['serializesModels'] = $serializesModels;
    $dynamic = [];
    if ($c->hasMethod('__serialize') && !$serializesModels) {
        $dynamic[] = '__serialize(): the class writes its own serialized form';
    } elseif ($c->hasMethod('__sleep')) {
        $dynamic[] = '__sleep(): the class chooses which properties are serialized';
    }
    $ctor = $c->getConstructor();
    $params = [];
    foreach ($ctor ? $ctor->getParameters() : [] as $param) {
        $params[$param->getName()] = $param;
    }
    $traitOf = [];
    foreach ($traits as $t) {
        foreach ((new ReflectionClass($t))->getProperties() as $tp) {
            $traitOf[$tp->getName()] ??= $t;
        }
    }
    $props = [];
    foreach (larq_types_ordered($c, $serializesModels) as $p) {
        $name = $p->getName();
        $prop = [
            'name' => $name,
            'visibility' => $p->isPrivate() ? 'private' : ($p->isProtected() ? 'protected' : 'public'),
            'type' => larq_types_type($p->getType()),
            'readonly' => $p->isReadOnly(),
            'promoted' => $p->isPromoted(),
            'declaringClass' => $p->getDeclaringClass()->getName(),
        ];
        if ($p->isPrivate()) {
            // SerializesModels mangles a private name with the object's class (`"\0{$class}\0{$name}"`)
            $prop['mangledClass'] = $serializesModels ? $c->getName() : $p->getDeclaringClass()->getName();
        }
        if ($p->hasDefaultValue() && !$p->isPromoted()) {
            try {
                $prop['default'] = larq_types_value($p->getDefaultValue());
            } catch (Throwable $e) {
                $dynamic[] = "\${$name}: its default is an object";
            }
        } elseif ($p->isPromoted() && isset($params[$name]) && $params[$name]->isDefaultValueAvailable()) {
            try {
                $prop['constructorDefault'] = larq_types_value($params[$name]->getDefaultValue());
            } catch (Throwable $e) {
                $dynamic[] = "\${$name}: its constructor default is computed (new ...)";
            }
        } elseif (!$p->hasType() && !$p->isPromoted()) {
            $prop['default'] = ['t' => 'null'];
        }
        $props[] = $prop;
        foreach (larq_types_named($p->getType()) as $used) {
            $queue[] = $used;
        }
    }
    $out['properties'] = $props;
    // What Laravel reads from the job object as tuning, where the class states it as a property default.
    $tuning = [];
    foreach (['tries', 'timeout', 'backoff', 'queue', 'connection', 'maxExceptions', 'uniqueFor', 'uniqueId', 'failOnTimeout', 'deleteWhenMissingModels', 'afterCommit'] as $name) {
        if ($c->hasProperty($name) && !$c->getProperty($name)->isStatic()) {
            $p = $c->getProperty($name);
            if ($p->hasDefaultValue() && $p->getDefaultValue() !== null && !isset($traitOf[$name])) {
                $tuning[$name] = larq_types_value($p->getDefaultValue());
            }
        }
    }
    if ($c->implementsInterface('Illuminate\Contracts\Queue\ShouldBeUnique')) {
        $tuning['unique'] = ['t' => 'bool', 'v' => true];
    }
    if ($c->implementsInterface('Illuminate\Contracts\Queue\ShouldBeUniqueUntilProcessing')) {
        $tuning['uniqueUntilProcessing'] = ['t' => 'bool', 'v' => true];
    }
    if ($c->implementsInterface('Illuminate\Contracts\Queue\ShouldBeEncrypted')) {
        $tuning['encrypted'] = ['t' => 'bool', 'v' => true];
    }
    $out['tuning'] = $tuning;
    foreach (['tags', 'middleware', 'backoff', 'retryUntil', 'uniqueId', 'uniqueVia', 'viaQueues', 'viaConnections', 'shouldQueue', 'displayName'] as $method) {
        if ($c->hasMethod($method) && $c->getMethod($method)->getDeclaringClass()->getFileName() === $c->getFileName()) {
            $dynamic[] = "{$method}(): computed when PHP dispatches; not known here";
        }
    }
    if ($kind === 'listener') {
        $event = larq_types_event_of($c);
        $out['event'] = $event;
        $queue[] = $event;
    }
    $out['dynamic'] = array_values(array_unique($dynamic));
    return $out;
}

$queue = [];
$classes = [];
foreach (larq_types_candidates($app, $roots) as $name) {
    if (!larq_types_exists($name)) {
        continue;
    }
    $c = new ReflectionClass($name);
    $kind = larq_types_kind($c);
    if (in_array($kind, ['job', 'listener', 'notification', 'mail'], true)) {
        $classes[$name] = larq_types_describe($c, $kind, $queue, $app);
    }
}
// The classes the queueable ones use, followed until none is new.
while ($queue) {
    $name = ltrim(array_shift($queue), '\\');
    if (isset($classes[$name]) || !larq_types_exists($name)) {
        continue;
    }
    $c = new ReflectionClass($name);
    if ($c->isInterface() || $c->isAbstract()) {
        $classes[$name] = ['name' => $name, 'kind' => 'interface'];
        continue;
    }
    $kind = larq_types_kind($c) ?? 'value';
    if ($c->isSubclassOf('Illuminate\Database\Eloquent\Collection') || $name === 'Illuminate\Database\Eloquent\Collection') {
        $kind = 'models';
    }
    $classes[$name] = in_array($kind, ['models'], true)
        ? ['name' => $name, 'kind' => $kind]
        : larq_types_describe($c, $kind === 'job' || $kind === 'listener' ? 'value' : $kind, $queue, $app);
}
$version = class_exists('Illuminate\Foundation\Application') ? Illuminate\Foundation\Application::VERSION : null;
echo json_encode(['laravel' => $version, 'php' => PHP_VERSION, 'classes' => array_values($classes)], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE), "\n";
