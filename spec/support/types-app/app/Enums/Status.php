<?php

namespace Shop\Enums;

enum Status: string
{
    case Open = 'open';
    case Paid = 'paid';
    case Void = 'void';
}
