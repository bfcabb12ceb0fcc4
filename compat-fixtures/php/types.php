<?php
// The PHP side of the `larq types` specs: one object of each queueable class of the types app (the app
// folder spec/support/typesApp.ts builds), made by PHP, so the specs compare larq's objects with them.
//
//   php types.php APP_DIR serialize   {case: base64 of serialize(object)}
//   php types.php APP_DIR describe    {case: describe.php's description of the object}
//   php types.php APP_DIR dispatch    pushes every job case with Queue::push, then fires OrderShipped and
//                                     StockChanged to their queued listeners: {case: job id or true}
//   php types.php APP_DIR wrappers    queues what the app's wrappers carry, as Laravel does: the two
//                                     listeners (Dispatcher::queueHandler), the two notifications for
//                                     customer 9 (NotificationSender::queueNotification, one job per
//                                     channel) and the two mailables (Mailable::queue): {case: true}
//
// Boots the harness (bootstrap.php: models on the seeded users 7, 8, 9 of connection "mysql"), then the
// app's own vendor/autoload.php.

declare(strict_types=1);

require_once __DIR__ . '/bootstrap.php';

$app = larq_boot();
require_once $argv[1] . '/vendor/autoload.php';

use Carbon\CarbonImmutable;
use Illuminate\Support\Carbon;
use Shop\Enums\Channel;
use Shop\Enums\Priority;
use Shop\Enums\Status;
use Shop\Models\Customer;
use Shop\Values\Address;
use Shop\Values\Geo;
use Shop\Values\LineItem;
use Shop\Values\Money;

function larq_types_address(): Address
{
    $geo = new Geo();
    $geo->lat = 52.37;
    $geo->lng = 4.0;
    $to = new Address();
    $to->street = 'Damrak 1';
    $to->city = 'Amsterdam';
    $to->geo = $geo;
    return $to;
}

/** The jobs, by case name (the class's short name); then the other queueable classes. */
$jobs = [
    'SendInvoice' => fn () => new Shop\Jobs\SendInvoice(Customer::find(7), 2.0),
    'ChargeCard' => fn () => new Shop\Jobs\ChargeCard('ref-1', 'first try', 3.0),
    'ChargeCardInt' => fn () => new Shop\Jobs\ChargeCard(1042),
    'ArchiveOrder' => fn () => new Shop\Jobs\ArchiveOrder(42, Priority::High),
    'SyncCatalog' => fn () => new Shop\Jobs\SyncCatalog(collect(['a-1', 'b-2'])),
    'RemindCustomer' => fn () => new Shop\Jobs\RemindCustomer(
        Carbon::parse('2026-03-04 05:06:07', 'UTC'),
        new DateTimeImmutable('2026-01-01 00:00:00', new DateTimeZone('UTC')),
    ),
    'RemindCustomerUntil' => function () {
        $job = new Shop\Jobs\RemindCustomer(
            Carbon::parse('2026-03-04 05:06:07.250000', 'UTC'),
            new DateTimeImmutable('2026-01-01 00:00:00', new DateTimeZone('UTC')),
        );
        $job->until = CarbonImmutable::parse('2026-04-01 00:00:00', 'UTC');
        return $job;
    },
    'ShipParcel' => fn () => new Shop\Jobs\ShipParcel(larq_types_address(), new LineItem('sku-9', 2, new Money(1999))),
    'NotifyChannel' => fn () => new Shop\Jobs\NotifyChannel(Channel::Sms),
    'RefundPayment' => fn () => new Shop\Jobs\RefundPayment(new Money(500, 'USD'), 'damaged'),
    'ImportRows' => fn () => new Shop\Jobs\ImportRows([['a' => 1], ['a' => 2.5]]),
    'TouchCustomers' => fn () => new Shop\Jobs\TouchCustomers(Customer::findMany([7, 8])),
    'StoreUpload' => fn () => new Shop\Jobs\StoreUpload('/uploads/x.pdf'),
];
$others = [
    'OrderShipped' => fn () => new Shop\Events\OrderShipped(Customer::find(8), 'TRK-1', 1.0),
    'StockChanged' => fn () => new Shop\Events\StockChanged('sku-1', -3),
    'InvoicePaid' => fn () => new Shop\Notifications\InvoicePaid(new Money(100), Status::Paid),
    'ShipmentDelayed' => fn () => new Shop\Notifications\ShipmentDelayed(3),
    'OrderReceipt' => fn () => new Shop\Mail\OrderReceipt(Customer::find(9), 10.0),
    'WeeklyDigest' => fn () => new Shop\Mail\WeeklyDigest(Carbon::parse('2026-02-02 00:00:00', 'UTC')),
];

$out = [];
switch ($argv[2] ?? '') {
    case 'serialize':
        foreach ($jobs + $others as $name => $make) {
            $out[$name] = base64_encode(serialize($make()));
        }
        break;
    case 'describe':
        foreach ($jobs + $others as $name => $make) {
            $out[$name] = larq_describe($make());
        }
        break;
    case 'dispatch':
        foreach ($jobs as $name => $make) {
            $out[$name] = $app['queue']->connection()->push($make());
        }
        // Laravel's event dispatcher queues each ShouldQueue listener as a CallQueuedListener.
        $events = $app['events'];
        $events->setQueueResolver(fn () => $app['queue']);
        $events->listen(Shop\Events\OrderShipped::class, Shop\Listeners\SendShipmentNotice::class);
        $events->listen(Shop\Events\StockChanged::class, Shop\Listeners\UpdateStock::class);
        foreach (['OrderShipped', 'StockChanged'] as $name) {
            $events->dispatch($others[$name]());
            $out[$name] = true;
        }
        break;
    case 'wrappers':
        $events = $app['events'];
        $events->setQueueResolver(fn () => $app['queue']);
        $events->listen(Shop\Events\OrderShipped::class, Shop\Listeners\SendShipmentNotice::class);
        $events->listen(Shop\Events\StockChanged::class, Shop\Listeners\UpdateStock::class);
        foreach (['OrderShipped', 'StockChanged'] as $name) {
            $events->dispatch($others[$name]());
            $out[$name] = true;
        }
        $notifications = new Illuminate\Notifications\ChannelManager($app);
        foreach (['InvoicePaid', 'ShipmentDelayed'] as $name) {
            $notifications->send(Customer::find(9), $others[$name]());
            $out[$name] = true;
        }
        foreach (['OrderReceipt', 'WeeklyDigest'] as $name) {
            $others[$name]()->queue($app['queue']);
            $out[$name] = true;
        }
        break;
    default:
        fwrite(STDERR, "usage: php types.php APP_DIR serialize|describe|dispatch|wrappers\n");
        exit(2);
}
echo larq_json($out), "\n";
