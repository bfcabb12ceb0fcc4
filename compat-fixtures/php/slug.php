<?php
// Laravel's own Str::slug (Debian's Laravel 8.83 with its voku/portable-ascii transliteration) over the
// JSON list of titles in the file named by the first argument. Prints a JSON list of [slug with '_', slug with '-'] pairs, in order.
declare(strict_types=1);

require_once '/usr/share/php/Illuminate/autoload.php';

use Illuminate\Support\Str;

$titles = json_decode(file_get_contents($argv[1]), true, 512, JSON_THROW_ON_ERROR);
$slugs = array_map(fn (string $title) => [Str::slug($title, '_'), Str::slug($title)], $titles);
echo json_encode($slugs, JSON_THROW_ON_ERROR | JSON_UNESCAPED_UNICODE), "\n";
