// codec_select.h — which codec a compressed call's messages use
// (ZCOLL_CODEC=fast|dense|auto): the configured one, or with `auto` the cost
// model's choice per call from the link rate, both codecs' rates and both
// ratios on the data's sample, agreed by every rank. Mode AUTO chooses mode,
// algorithm and codec together (auto_select.cc); an explicit compressed mode
// that can use either codec (doc, cpr_p2p) chooses the codec here, after the
// settings agreement, for the mode and algorithm that run.
#pragma once

#include "coll/control/call_plan.h"

namespace zcoll::coll {

// The handle's codec when the model does not choose: dense for
// ZCOLL_CODEC=dense, else fast.
zcoll_codec configured_codec(const zcoll_comm& zc);

// Whether the model chooses the codec (ZCOLL_CODEC=auto) on this handle: not
// on a device handle, whose codec has no dense streams (auto runs fast there).
bool codec_choice(const zcoll_comm& zc);

// The codec of an explicit mode: the configured one, or, when the model
// chooses (sel->codec_auto, set here), pick_codec (cost_model.h) for sel's
// mode and algorithm at the agreed ratios g (dense only when 3 % faster; fast
// when the model has no dense rates). Collective (the model's probe the first
// time); every rank reaches it with the same settings (agreed before).
zcoll_status choose_codec(zcoll_comm* zc, const Call& k, const Resolved& s, const Agreed& g,
                          Selection* sel);

// "fast" or "dense".
const char* codec_name(zcoll_codec codec);

// sel->why_codec: "codec auto: <codec> (<what>; ratio fast ~x, dense ~y)".
void explain_codec(Selection* sel, const char* what, double ratio, double ratio_dense);

}  // namespace zcoll::coll
