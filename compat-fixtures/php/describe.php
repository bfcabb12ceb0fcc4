<?php
// The language-neutral description of a PHP value, the format of the fixtures' `job` field
// (compat-fixtures/laravel/README.md), so Node and PHP can compare what each side holds:
//
//   {t: "null"}
//   {t: "bool", v: true|false}
//   {t: "int", v: 42}            a JSON number while |v| <= 2^53 - 1;
//   {t: "int", v: "9007199254740993"}   a decimal string beyond that, so it stays exact
//   {t: "float", v: "2.0"}       PHP's own text of the float (var_export): "1.5", "0.1", "1.0E+25",
//                                "-0.0", "INF", "NAN"
//   {t: "string", v: "..."}      valid UTF-8; otherwise v has U+FFFD replacements and
//                                b64 holds the exact bytes
//   {t: "array", entries: [{k, v}]}      k is a number (or a decimal string beyond 2^53) or a string
//   {t: "enum", class, case}
//   {t: "object", class, props: [{name, visibility, declaringClass? (private only), value}]}
//   {t: "model", class, connection, exists, key, attributes}   an Eloquent model (see below)
//
// Object properties: every non-static, initialized property ReflectionClass lists, in its order
// (the order SerializesModels serializes them in), then whatever else the object holds (private
// properties of parent classes, dynamic properties, the state of internal classes such as
// DateTime: date, timezone_type, timezone), read from an (array) cast.
//
// Eloquent models are not described property by property (dozens of framework internals): they
// become {t: "model", class, connection, exists, key: <described>, attributes: <described array>}.
// An Eloquent collection is an ordinary object (its protected `items` holds the models).

declare(strict_types=1);

const LARQ_MAX_SAFE_INT = 9007199254740991;

/** PHP's own text of a float, as var_export prints it. */
function larq_float_text(float $f): string
{
    if (is_nan($f)) {
        return 'NAN';
    }
    if (is_infinite($f)) {
        return $f > 0 ? 'INF' : '-INF';
    }
    return var_export($f, true);
}

/** An int as JSON can carry it exactly: a number when safe, else a decimal string. */
function larq_int_value(int $i): int|string
{
    return ($i > LARQ_MAX_SAFE_INT || $i < -LARQ_MAX_SAFE_INT) ? (string) $i : $i;
}

/**
 * Describes $value. $liveJob: the queue job Laravel injected into a running command
 * (InteractsWithQueue::$job); it is runtime state, not job data, and is described as null, the
 * value it has on the wire.
 */
function larq_describe(mixed $value, ?object $liveJob = null, int $depth = 0): array
{
    if ($depth > 64) {
        return ['t' => 'string', 'v' => '*** nesting too deep ***'];
    }
    if ($value === null) {
        return ['t' => 'null'];
    }
    if (is_bool($value)) {
        return ['t' => 'bool', 'v' => $value];
    }
    if (is_int($value)) {
        return ['t' => 'int', 'v' => larq_int_value($value)];
    }
    if (is_float($value)) {
        return ['t' => 'float', 'v' => larq_float_text($value)];
    }
    if (is_string($value)) {
        return larq_describe_string($value);
    }
    if (is_array($value)) {
        $entries = [];
        foreach ($value as $k => $v) {
            $entries[] = ['k' => is_int($k) ? larq_int_value($k) : $k, 'v' => larq_describe($v, $liveJob, $depth + 1)];
        }
        return ['t' => 'array', 'entries' => $entries];
    }
    if ($value instanceof UnitEnum) {
        return ['t' => 'enum', 'class' => get_class($value), 'case' => $value->name];
    }
    if ($liveJob !== null && $value === $liveJob) {
        return ['t' => 'null'];
    }
    if ($value instanceof Illuminate\Database\Eloquent\Model) {
        return [
            't' => 'model',
            'class' => get_class($value),
            'connection' => $value->getConnectionName(),
            'exists' => $value->exists,
            'key' => larq_describe($value->getKey(), $liveJob, $depth + 1),
            'attributes' => larq_describe($value->getAttributes(), $liveJob, $depth + 1),
        ];
    }
    if (is_object($value)) {
        return ['t' => 'object', 'class' => get_class($value), 'props' => larq_describe_props($value, $liveJob, $depth)];
    }
    return ['t' => 'string', 'v' => '*** ' . get_debug_type($value) . ' ***'];
}

function larq_describe_string(string $s): array
{
    if (mb_check_encoding($s, 'UTF-8')) {
        return ['t' => 'string', 'v' => $s];
    }
    return ['t' => 'string', 'v' => mb_scrub($s, 'UTF-8'), 'b64' => base64_encode($s)];
}

/** Reflection's properties first, then the rest of the (array) cast. */
function larq_describe_props(object $object, ?object $liveJob, int $depth): array
{
    $props = [];
    $seen = [];
    foreach ((new ReflectionObject($object))->getProperties() as $p) {
        if ($p->isStatic() || !$p->isInitialized($object)) {
            continue;
        }
        $p->setAccessible(true);
        $visibility = $p->isPrivate() ? 'private' : ($p->isProtected() ? 'protected' : 'public');
        $declaring = $p->isPrivate() ? $p->getDeclaringClass()->getName() : null;
        $seen[larq_mangle($p->getName(), $visibility, $declaring)] = true;
        $props[] = larq_prop($p->getName(), $visibility, $declaring, larq_describe($p->getValue($object), $liveJob, $depth + 1));
    }
    foreach ((array) $object as $mangled => $v) {
        $mangled = (string) $mangled;
        if (isset($seen[$mangled])) {
            continue;
        }
        [$name, $visibility, $declaring] = larq_unmangle($mangled);
        $props[] = larq_prop($name, $visibility, $declaring, larq_describe($v, $liveJob, $depth + 1));
    }
    return $props;
}

function larq_prop(string $name, string $visibility, ?string $declaring, array $value): array
{
    $prop = ['name' => $name, 'visibility' => $visibility];
    if ($declaring !== null) {
        $prop['declaringClass'] = $declaring;
    }
    $prop['value'] = $value;
    return $prop;
}

/** The key PHP's (array) cast uses for a property. */
function larq_mangle(string $name, string $visibility, ?string $declaring): string
{
    return match ($visibility) {
        'private' => "\0{$declaring}\0{$name}",
        'protected' => "\0*\0{$name}",
        default => $name,
    };
}

/** [name, visibility, declaringClass] from an (array) cast key. */
function larq_unmangle(string $key): array
{
    if ($key === '' || $key[0] !== "\0") {
        return [$key, 'public', null];
    }
    $end = strpos($key, "\0", 1);
    $scope = substr($key, 1, $end - 1);
    $name = substr($key, $end + 1);
    return $scope === '*' ? [$name, 'protected', null] : [$name, 'private', $scope];
}

/**
 * The properties of a queued command that its serialized form leaves out: SerializesModels (9.x+)
 * skips a property still holding its declared default, so a reader of the payload never sees it and
 * PHP restores it from the class. [] for anything else (8.x writes every property).
 */
function larq_omitted_properties(mixed $value): array
{
    if (!is_object($value) || !in_array(Illuminate\Queue\SerializesModels::class, larq_class_uses_deep($value), true)
        || !method_exists($value, '__serialize')) {
        return [];
    }
    $written = [];
    foreach (array_keys($value->__serialize()) as $mangled) {
        $written[larq_unmangle((string) $mangled)[0]] = true;
    }
    $omitted = [];
    foreach ((new ReflectionObject($value))->getProperties() as $p) {
        if (!$p->isStatic() && $p->isInitialized($value) && !isset($written[$p->getName()])) {
            $omitted[] = $p->getName();
        }
    }
    return $omitted;
}

/** The traits of an object's class and its parents, and the traits those use. */
function larq_class_uses_deep(object $value): array
{
    $traits = [];
    for ($class = get_class($value); $class !== false; $class = get_parent_class($class)) {
        $pending = class_uses($class);
        while ($pending !== []) {
            $trait = array_pop($pending);
            if (!isset($traits[$trait])) {
                $traits[$trait] = $trait;
                $pending += class_uses($trait);
            }
        }
    }
    return array_values($traits);
}

/** JSON as every script here prints it: exact UTF-8, unescaped slashes, 2.0 stays 2.0. */
function larq_json(mixed $value): string
{
    return json_encode($value, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION | JSON_THROW_ON_ERROR);
}
