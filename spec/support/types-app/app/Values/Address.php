<?php

namespace Shop\Values;

class Address
{
    public string $street;
    public ?string $city = null;
    public Geo $geo;
}
