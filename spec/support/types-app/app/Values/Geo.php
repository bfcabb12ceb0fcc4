<?php

namespace Shop\Values;

class Geo
{
    public float $lat;
    public float $lng;
}
