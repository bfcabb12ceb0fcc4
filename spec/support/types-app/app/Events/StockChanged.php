<?php

namespace Shop\Events;

class StockChanged
{
    public function __construct(
        public string $sku,
        public int $delta,
        public ?float $cost = null,
    ) {
    }
}
