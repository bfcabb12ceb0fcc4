<?php

namespace Shop\Enums;

enum Priority: int
{
    case Low = 1;
    case High = 2;
}
