<?php
// Redis::throttle and Redis::funnel from PHP, once: prints "ok" when the limiter let the callback run,
// "limited" when it did not (LimiterTimeoutException or the failure callback).
//
// Usage: php limiters.php throttle NAME ALLOW EVERY
//        php limiters.php funnel NAME LIMIT RELEASE_AFTER

declare(strict_types=1);

require __DIR__ . '/bootstrap.php';

use Illuminate\Support\Facades\Redis;

larq_boot();
[, $kind, $name, $n, $seconds] = $argv;
$ok = fn () => print("ok\n");
$limited = fn () => print("limited\n");
if ($kind === 'throttle') {
    Redis::throttle($name)->allow((int) $n)->every((int) $seconds)->block(0)->then($ok, $limited);
} else {
    Redis::funnel($name)->limit((int) $n)->releaseAfter((int) $seconds)->block(0)->then($ok, $limited);
}
