<?php

namespace Shop\Channels;

/** A second recording channel, for a notification sent on two channels. */
class SmsChannel extends LogChannel
{
}
