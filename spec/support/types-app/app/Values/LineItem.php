<?php

namespace Shop\Values;

class LineItem
{
    protected array $meta = [];

    public function __construct(
        public string $sku,
        public int $qty,
        public Money $price,
    ) {
    }
}
