<?php

namespace Shop\Models;

use Illuminate\Database\Eloquent\Model;

/** The harness seeds users 7, 8 and 9 in every PHP process. */
class Customer extends Model
{
    protected $table = 'users';
    protected $guarded = [];
    public $timestamps = false;
}
