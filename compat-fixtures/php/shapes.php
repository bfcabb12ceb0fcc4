<?php
// Every PHP value shape a Laravel job can carry in data.command, for spec/interop/php-shapes.spec.ts:
// scalars, floats (-0.0, INF, NAN), arrays with mixed keys, objects of every visibility, enums,
// shared objects (r:) and PHP references (R:), objects whose __serialize() returns integer keys
// (ArrayObject, ArrayIterator, SplObjectStorage, SplQueue, SplFixedArray, user classes), dates and
// intervals, a Collection, closures (SerializableClosure), Eloquent models (ModelIdentifier) and raw bytes that are not UTF-8.
//
// Usage: php shapes.php <mode>   (environment: see bootstrap.php)
//   values     prints {"shapes": {name: base64 of serialize(value)}, "commands": {name: base64 of
//              serialize(job)}}: each shape alone, and whole job commands holding all of them
//   dispatch   Laravel's bus dispatcher pushes ShapeJob (every shape but the raw bytes, which
//              json_encode refuses) and SecretShapeJob (ShouldBeEncrypted, every shape); prints {"ids"}
//   dispatch-bytes  only SecretShapeJob, its value ['bytes' => raw bytes], no models
//   work N     pops N jobs with Laravel's own RedisQueue and fires them (RedisJob::fire, as the
//              worker does); prints a JSON list, one entry per handle() call: {"class", "shapes":
//              {name: base64 of serialize(value)}, "facts": {...}} (what the job received)

declare(strict_types=1);

namespace {
    // before the classes below, whose traits and parents it loads
    require_once __DIR__ . '/bootstrap.php';
}

namespace App\Shapes {
    use App\Models\User;
    use ArrayIterator;
    use ArrayObject;
    use Carbon\CarbonInterval;
    use DateInterval;
    use DatePeriod;
    use DateTime;
    use DateTimeImmutable;
    use DateTimeZone;
    use Illuminate\Bus\Queueable;
    use Illuminate\Contracts\Queue\ShouldBeEncrypted;
    use Illuminate\Contracts\Queue\ShouldQueue;
    use Illuminate\Foundation\Bus\Dispatchable;
    use Illuminate\Queue\InteractsWithQueue;
    use Illuminate\Queue\SerializesModels;
    use Illuminate\Support\Carbon;
    use Illuminate\Support\Collection;
    use Laravel\SerializableClosure\SerializableClosure;
    use SplFixedArray;
    use SplObjectStorage;
    use SplQueue;
    use SplStack;
    use stdClass;

    enum Suit: string
    {
        case Hearts = 'H';
        case Spades = 'S';
    }

    enum Light
    {
        case Red;
        case Green;
    }

    class Base
    {
        private $secret = 'base-secret';
    }

    /** Public, protected and private properties, plus a parent's private one. */
    class Visible extends Base
    {
        public $open = 'o';
        protected $guarded = 'g';
        private $hidden = 'h';
    }

    /** A user class whose __serialize() returns a list: `O:...{i:0;...}`. */
    class Pair
    {
        public function __construct(public $left = null, public $right = null)
        {
        }

        public function __serialize(): array
        {
            return [$this->left, $this->right];
        }

        public function __unserialize(array $data): void
        {
            [$this->left, $this->right] = $data;
        }
    }

    /** A legacy Serializable class (no __serialize): `C:` with an opaque payload. */
    class Legacy implements \Serializable
    {
        public function serialize()
        {
            return 'raw;}data';
        }

        public function unserialize($data)
        {
        }
    }

    /** A user class whose __serialize() mixes integer and string keys. */
    class MixedKeys
    {
        public $items = [];

        public function __serialize(): array
        {
            return [10 => 'ten', 'name' => 'mixed', 2 => 'two', -1 => 'minus one'];
        }

        public function __unserialize(array $data): void
        {
            $this->items = $data;
        }
    }

    /** The shapes, by name: PHP values as a Laravel job holds them. */
    function shapes(bool $withBytes = true): array
    {
        $shared = new stdClass();
        $shared->n = 1;
        $self = new stdClass();
        $self->me = $self;
        $x = 'aliased';
        $aliases = [&$x, &$x];
        $aliasedProperty = new stdClass();
        $aliasedProperty->a = 1;
        $aliasedProperty->b = &$aliasedProperty->a;
        $dynamic = new stdClass();
        $dynamic->{'0'} = 'zero';
        $dynamic->{'12'} = 'twelve';
        $dynamic->name = 'named';
        $storage = new SplObjectStorage();
        $storage[$shared] = 'data';
        $queue = new SplQueue();
        $queue->push(1);
        $queue->push('two');
        $stack = new SplStack();
        $stack->push(3);

        $shapes = [
            'null' => null,
            'true' => true,
            'false' => false,
            'int' => 42,
            'int-negative' => -7,
            'int-max' => PHP_INT_MAX,
            'int-min' => PHP_INT_MIN,
            'string' => 'plain',
            'string-empty' => '',
            'string-utf8' => 'héllo “wörld” 😀',
            'string-nul' => "a\0b",
            'string-punctuation' => 'a";}s:1:"x',
            'float' => 1.5,
            'float-integral' => 2.0,
            'float-negative-zero' => -0.0,
            'float-inf' => INF,
            'float-negative-inf' => -INF,
            'float-nan' => NAN,
            'float-tenth' => 0.1,
            'float-big' => 1e25,
            'float-small' => 1.5e-7,
            'float-edges' => [0.1 + 0.2, 5e-324, 1.7976931348623157e308, 1e15, 1e17, 123456789012345678.0, 0.0001, 0.00001, -2.5e-300, -1.5],
            'list' => [1, 'two', 3.0],
            'array-mixed-keys' => ['z' => 1, '10' => 2, '2' => 3, 'a' => 4],
            'array-negative-keys' => [-5 => 'a', 0 => 'b', '07' => 'c', '-0' => 'd'],
            'array-edge-keys' => ['9223372036854775807' => 'a', '9223372036854775808' => 'b', '' => 'c', ' 1' => 'd'],
            'array-nested' => ['a' => [1, [2, ['deep' => true]]], 'b' => []],
            'object-visibility' => new Visible(),
            'object-dynamic-numeric' => $dynamic,
            'enum-backed' => Suit::Hearts,
            'enum-pure' => Light::Green,
            'enum-twice' => [Suit::Spades, Light::Red, Suit::Spades, Light::Red],
            'shared-object' => [$shared, $shared, ['again' => $shared]],
            'self-object' => $self,
            'php-reference' => $aliases,
            'php-reference-property' => $aliasedProperty,
            'array-object' => new ArrayObject([1, 2, 'k' => 'v']),
            'array-object-flags' => new ArrayObject(['a' => 1], ArrayObject::ARRAY_AS_PROPS),
            'array-iterator' => new ArrayIterator(['k' => 1, 5 => 2]),
            'spl-object-storage' => $storage,
            'spl-queue' => $queue,
            'spl-stack' => $stack,
            'spl-fixed-array' => SplFixedArray::fromArray([1, 2, 3]),
            'serialize-list' => new Pair('l', new Pair(1, 2)),
            'serialize-mixed-keys' => new MixedKeys(),
            'serializable-legacy' => new Legacy(),
            'date-time' => new DateTime('2024-05-06 07:08:09.123456', new DateTimeZone('Europe/Amsterdam')),
            'date-time-immutable' => new DateTimeImmutable('2024-05-06 07:08:09', new DateTimeZone('+02:00')),
            'carbon' => Carbon::create(2024, 5, 6, 7, 8, 9, 'UTC'),
            'carbon-immutable' => Carbon::create(2024, 1, 2, 3, 4, 5, 'America/New_York')->toImmutable(),
            'date-time-zone' => new DateTimeZone('Europe/Paris'),
            'date-interval' => new DateInterval('P1DT2H'),
            'date-period' => new DatePeriod(new DateTime('2024-01-01 00:00:00', new DateTimeZone('UTC')), new DateInterval('P1D'), 2),
            'carbon-interval' => CarbonInterval::days(2),
            'collection' => new Collection([1, 'a' => 2]),
            'closure' => new SerializableClosure(function (int $n) {
                return $n * 2;
            }),
        ];
        if ($withBytes) {
            $shapes['bytes'] = "\xff\xfe\x00\x80raw";
            $shapes['bytes-in-array'] = ['digest' => hash('sha256', 'larq', true), 'half' => "\xc3\x28"];
        }
        return $shapes;
    }

    /** What the job received, for the spec: each shape as PHP serializes it, and identities PHP sees. */
    function received(object $job): array
    {
        $v = $job->value;
        $shapes = [];
        foreach ($v as $name => $value) {
            $shapes[$name] = base64_encode(serialize($value));
        }
        if (array_keys($v) === ['bytes']) {
            return ['class' => get_class($job), 'shapes' => $shapes, 'facts' => ['bytes' => bin2hex($v['bytes'])]];
        }
        $facts = [
            'sharedIsIdentical' => $v['shared-object'][0] === $v['shared-object'][1]
                && $v['shared-object'][2]['again'] === $v['shared-object'][0],
            'selfIsIdentical' => $v['self-object']->me === $v['self-object'],
            'enumIsCase' => $v['enum-twice'][0] === Suit::Spades && $v['enum-twice'][2] === Suit::Spades,
            'arrayObject' => get_class($v['array-object']) . ' ' . json_encode($v['array-object']->getArrayCopy()),
            'splQueue' => json_encode(iterator_to_array($v['spl-queue'])),
            'pair' => [$v['serialize-list']->left, $v['serialize-list']->right->right],
            'negativeZero' => var_export($v['float-negative-zero'], true),
            'model' => [get_class($job->model), $job->model->getKey(), $job->model->exists],
            'models' => [get_class($job->models), $job->models->modelKeys()],
            'closure' => ($v['closure']->getClosure())(21),
        ];
        if (array_key_exists('bytes', $v)) {
            $facts['bytes'] = bin2hex($v['bytes']);
            $facts['digest'] = bin2hex($v['bytes-in-array']['digest']);
        }
        return ['class' => get_class($job), 'shapes' => $shapes, 'facts' => $facts];
    }

    /** Every shape but raw bytes, which json_encode refuses in a plain payload. */
    class ShapeJob implements ShouldQueue
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        /** What handle() received, by the jobs fired in this process. */
        public static array $received = [];

        public function __construct(public $value = null, public $model = null, public $models = null)
        {
        }

        public function handle(): void
        {
            self::$received[] = received($this);
        }
    }

    /** Every shape, raw bytes included: only an encrypted command can carry them. */
    class SecretShapeJob implements ShouldQueue, ShouldBeEncrypted
    {
        use Dispatchable, Queueable, InteractsWithQueue, SerializesModels;

        public function __construct(public $value = null, public $model = null, public $models = null)
        {
        }

        public function handle(): void
        {
            ShapeJob::$received[] = received($this);
        }
    }
}

namespace {
    use App\Models\User;
    use App\Shapes;
    use Illuminate\Queue\CallQueuedClosure;
    use Illuminate\Queue\Events\JobQueued;

    $app = larq_boot();
    $mode = $argv[1] ?? '';

    switch ($mode) {
        case 'values':
            $shapes = array_map(fn ($v) => base64_encode(serialize($v)), Shapes\shapes());
            $user = User::findOrFail(7);
            $users = User::findMany([7, 8]);
            $commands = [
                'shape-job' => new Shapes\ShapeJob(Shapes\shapes(false), $user, $users),
                'secret-shape-job' => new Shapes\SecretShapeJob(Shapes\shapes(), $user, $users),
                'closure-command' => CallQueuedClosure::create(function () {
                    return 'queued closure';
                }),
            ];
            echo larq_json(['shapes' => $shapes, 'commands' => array_map(fn ($c) => base64_encode(serialize($c)), $commands)]), "\n";
            break;
        case 'dispatch':
        case 'dispatch-bytes':
            $ids = [];
            $app['events']->listen(JobQueued::class, function (JobQueued $e) use (&$ids) {
                $ids[] = $e->id;
            });
            $bus = $app[Illuminate\Contracts\Bus\Dispatcher::class];
            $user = User::findOrFail(7);
            $users = User::findMany([7, 8]);
            if ($mode === 'dispatch-bytes') {
                $bus->dispatch(new Shapes\SecretShapeJob(['bytes' => Shapes\shapes()['bytes']]));
            } else {
                $bus->dispatch(new Shapes\ShapeJob(Shapes\shapes(false), $user, $users));
                $bus->dispatch(new Shapes\SecretShapeJob(Shapes\shapes(), $user, $users));
            }
            echo larq_json(['ids' => $ids]), "\n";
            break;
        case 'work':
            $queue = $app['queue']->connection('redis');
            $n = (int) ($argv[2] ?? '1');
            for ($i = 0; $i < $n; $i++) {
                $job = $queue->pop();
                if ($job === null) {
                    fwrite(STDERR, "shapes.php work: only {$i} of {$n} jobs in the queue\n");
                    exit(1);
                }
                $job->fire();
                $job->delete();
            }
            echo larq_json(Shapes\ShapeJob::$received), "\n";
            break;
        default:
            fwrite(STDERR, "usage: php shapes.php values | dispatch | dispatch-bytes | work N\n");
            exit(2);
    }
}
