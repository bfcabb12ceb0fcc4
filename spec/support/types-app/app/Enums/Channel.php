<?php

namespace Shop\Enums;

enum Channel
{
    case Email;
    case Sms;
}
