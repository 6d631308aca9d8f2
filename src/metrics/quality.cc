// quality.cc — placeholder until the metrics module lands.
#include "zcoll.h"
