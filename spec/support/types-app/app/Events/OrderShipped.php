<?php

namespace Shop\Events;

use Illuminate\Queue\SerializesModels;
use Shop\Models\Customer;

class OrderShipped
{
    use SerializesModels;

    public function __construct(
        public Customer $customer,
        public string $tracking,
        public float $weight,
    ) {
    }
}
