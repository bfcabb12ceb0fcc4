<?php
// What Laravel's queue:retry does to a failed job's payload before pushing it back (RetryCommand's
// resetAttempts and json_decode/json_encode round trip), for each payload in the JSON list in the file
// named by the first argument. Prints the JSON list of results.
declare(strict_types=1);

$payloads = json_decode(file_get_contents($argv[1]), true, 512, JSON_THROW_ON_ERROR);
$out = [];
foreach ($payloads as $raw) {
    $payload = json_decode($raw, true);
    if (isset($payload['attempts'])) {
        $payload['attempts'] = 0;
    }
    $out[] = json_encode($payload);
}
echo json_encode($out), "\n";
