// hom.cc — placeholder until the homomorphic operations land.
#include "zcoll.h"
