console.log("dash");
