<?php

namespace Shop\Values;

final class Money
{
    public function __construct(
        public readonly int $cents,
        public readonly string $currency = 'EUR',
    ) {
    }
}
