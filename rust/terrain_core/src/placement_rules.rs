//! The placement rules instances (`instances::Rules`) and detail (`detail::DetailRules`) share: the scale
//! range, the slopes allowed, how far an instance leans with the ground, its height above it, and where
//! it may stand with respect to water. One
//! type, one validation, one way to set a range's end (the other end follows, as a Godot Range does, so a
//! scene that loads min before max never trips over an interim state).

use std::fmt;

/// Where something may stand with respect to a terrain's water (`water::WaterLevels`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WaterRule {
    /// Only on dry ground (trees, grass): the default.
    #[default]
    Avoid,
    /// Anywhere.
    Any,
    /// Only under water, its depth within the rule's range (reeds in the shallows, kelp in the deep).
    Only,
}

impl WaterRule {
    pub fn from_index(i: i64) -> Option<Self> {
        [Self::Avoid, Self::Any, Self::Only]
            .get(usize::try_from(i).ok()?)
            .copied()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlacementRules {
    /// Uniform scale drawn in [min, max].
    pub scale: [f32; 2],
    /// Allowed ground slope, degrees from horizontal, [min, max].
    pub slope: [f32; 2],
    /// 0: upright; 1: along the ground's normal.
    pub align: f32,
    /// Height above the ground (negative sinks the base in).
    pub offset: f32,
    pub water: WaterRule,
    /// Water depths allowed with `WaterRule::Only`, [min, max].
    pub water_depth: [f32; 2],
}

impl Default for PlacementRules {
    fn default() -> Self {
        Self {
            scale: [1.0, 1.0],
            slope: [0.0, 90.0],
            align: 0.0,
            offset: 0.0,
            water: WaterRule::Avoid,
            water_depth: [0.0, 1e5],
        }
    }
}

/// A rule out of its range (the property names are the inspector's).
#[derive(Debug, Clone, PartialEq)]
pub enum PlacementRulesError {
    Scale([f32; 2]),
    Slope([f32; 2]),
    Align(f32),
    /// The offset and the largest allowed (the two users differ).
    Offset(f32, f32),
    WaterDepth([f32; 2]),
}

impl fmt::Display for PlacementRulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Scale(v) => write!(f, "scale range must be 0 < min ≤ max ≤ 1000, got {v:?}"),
            Self::Slope(v) => write!(
                f,
                "slope range must be 0 ≤ min ≤ max ≤ 90 degrees, got {v:?}"
            ),
            Self::Align(v) => write!(f, "align_to_normal must be in [0, 1], got {v}"),
            Self::Offset(v, most) => {
                write!(f, "height_offset must be in [-{most}, {most}], got {v}")
            }
            Self::WaterDepth(v) => write!(
                f,
                "water depth range must be 0 ≤ min ≤ max ≤ 100000, got {v:?}"
            ),
        }
    }
}

impl std::error::Error for PlacementRulesError {}

impl PlacementRules {
    /// Checks every rule; the offset within ±`max_offset`.
    pub fn check(&self, max_offset: f32) -> Result<(), PlacementRulesError> {
        let [a, b] = self.scale;
        if !(a > 0.0 && a <= b && b <= 1000.0) {
            return Err(PlacementRulesError::Scale(self.scale));
        }
        let [s0, s1] = self.slope;
        if !(0.0 <= s0 && s0 <= s1 && s1 <= 90.0) {
            return Err(PlacementRulesError::Slope(self.slope));
        }
        if !(0.0..=1.0).contains(&self.align) {
            return Err(PlacementRulesError::Align(self.align));
        }
        if !(-max_offset..=max_offset).contains(&self.offset) {
            return Err(PlacementRulesError::Offset(self.offset, max_offset));
        }
        let [w0, w1] = self.water_depth;
        if !(0.0 <= w0 && w0 <= w1 && w1 <= 1e5) {
            return Err(PlacementRulesError::WaterDepth(self.water_depth));
        }
        Ok(())
    }

    pub fn set_scale_min(&mut self, v: f32) {
        self.scale = [v, self.scale[1].max(v)];
    }

    pub fn set_scale_max(&mut self, v: f32) {
        self.scale = [self.scale[0].min(v), v];
    }

    pub fn set_slope_min(&mut self, v: f32) {
        self.slope = [v, self.slope[1].max(v)];
    }

    pub fn set_slope_max(&mut self, v: f32) {
        self.slope = [self.slope[0].min(v), v];
    }

    /// Whether ground sloped `degrees` may carry an instance.
    pub fn allows_slope(&self, degrees: f32) -> bool {
        self.slope[0] <= degrees && degrees <= self.slope[1]
    }

    pub fn set_water_depth_min(&mut self, v: f32) {
        self.water_depth = [v, self.water_depth[1].max(v)];
    }

    pub fn set_water_depth_max(&mut self, v: f32) {
        self.water_depth = [self.water_depth[0].min(v), v];
    }

    /// Whether ground under `depth` of water (None: dry) may carry an instance.
    pub fn allows_water(&self, depth: Option<f32>) -> bool {
        match (self.water, depth) {
            (WaterRule::Any, _) => true,
            (WaterRule::Avoid, d) => d.is_none(),
            (WaterRule::Only, Some(d)) => self.water_depth[0] <= d && d <= self.water_depth[1],
            (WaterRule::Only, None) => false,
        }
    }

    /// The scale for a random number `u` in [0, 1).
    pub fn scale_at(&self, u: f32) -> f32 {
        self.scale[0] + (self.scale[1] - self.scale[0]) * u
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_other_end_follows_and_bad_rules_are_named() {
        let mut r = PlacementRules::default();
        r.set_scale_min(3.0);
        assert_eq!(r.scale, [3.0, 3.0]);
        r.set_scale_max(0.5);
        assert_eq!(r.scale, [0.5, 0.5]);
        r.set_slope_max(20.0);
        r.set_slope_min(30.0);
        assert_eq!(r.slope, [30.0, 30.0]);
        assert!(r.check(1.0).is_ok() && r.allows_slope(30.0) && !r.allows_slope(29.0));
        assert_eq!(r.scale_at(0.5), 0.5);
        r.offset = 2.0;
        let e = r.check(1.0).unwrap_err();
        assert_eq!(e.to_string(), "height_offset must be in [-1, 1], got 2");
        r.offset = f32::NAN;
        assert!(r.check(1e5).is_err());
        r.offset = 0.0;
        r.align = -0.1;
        assert!(matches!(r.check(1.0), Err(PlacementRulesError::Align(_))));
        r.align = 0.0;
        r.slope = [0.0, 91.0];
        assert!(matches!(r.check(1.0), Err(PlacementRulesError::Slope(_))));
        r.slope = [0.0, 90.0];
        r.scale = [0.0, 1.0];
        assert!(matches!(r.check(1.0), Err(PlacementRulesError::Scale(_))));
        r.scale = [1.0, 1.0];
        assert!(
            r.allows_water(None) && !r.allows_water(Some(0.1)),
            "dry only by default"
        );
        r.water = WaterRule::Only;
        r.set_water_depth_max(0.5);
        assert!(r.allows_water(Some(0.3)) && !r.allows_water(Some(0.6)) && !r.allows_water(None));
        r.water_depth = [1.0, 0.5];
        assert!(matches!(
            r.check(1.0),
            Err(PlacementRulesError::WaterDepth(_))
        ));
    }
}
